"""One remote step on ``--target`` and what came of it: ``ANSWER <value>``, or ``ERROR <class>
<message>`` (the e2e TLS scenario runs it with and without the client certificate)."""

import argparse

import tfcluster as tf


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    target = parser.parse_args().target
    config = tf.ConfigProto(operation_timeout_in_ms=60000)
    try:
        with tf.Session(target, config=config) as sess:
            print("ANSWER", sess.run(tf.constant(41) + 1), flush=True)
    except tf.errors.OpError as e:
        print("ERROR", type(e).__name__, e.message, flush=True)


if __name__ == "__main__":
    main()
