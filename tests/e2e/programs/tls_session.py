"""One remote step on ``--target`` and what came of it: ``ANSWER <value>``, or ``ERROR <class>
<message>`` (the e2e TLS scenario runs it with and without the client certificate, the
network-policy scenario from pods with and without the client label)."""

import argparse

import tfcluster as tf


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--timeout_ms", type=int, default=60000)
    flags = parser.parse_args()
    target = flags.target
    config = tf.ConfigProto(operation_timeout_in_ms=flags.timeout_ms)
    try:
        with tf.Session(target, config=config) as sess:
            print("ANSWER", sess.run(tf.constant(41) + 1), flush=True)
    except tf.errors.OpError as e:
        print("ERROR", type(e).__name__, e.message, flush=True)


if __name__ == "__main__":
    main()
