"""TLSSocket (direct streams over TLS): a big message crosses as many TLS records, read back
whole, while another thread writes on the same connection."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import numpy as np
from support import tls_identities
from tfcluster.rpc.direct.tls_socket import TLSSocket


def _pair(tmp_path: Path) -> tuple[TLSSocket, TLSSocket]:
    material = tls_identities.material(tls_identities.make(tmp_path).task)
    a, b = socket.socketpair()
    server = TLSSocket(a, material.server_context, server_side=True)
    client = TLSSocket(b, material.client_context, server_side=False, server_hostname="localhost")
    shaking = threading.Thread(target=server.handshake)
    shaking.start()
    client.handshake()
    shaking.join()
    return server, client


def _read_exactly(sock: TLSSocket, n: int) -> bytes:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        assert k, "the peer hung up"
        got += k
    return bytes(buf)


def test_a_message_of_many_records_is_read_whole_in_few_reads(tmp_path: Path) -> None:
    server, client = _pair(tmp_path)
    data = np.random.default_rng(0).integers(0, 256, 3 << 20, np.uint8).tobytes()
    sender = threading.Thread(target=server.sendall, args=(data,))
    sender.start()
    reads = 0
    buf = bytearray(len(data))
    view = memoryview(buf)
    got = 0
    while got < len(data):
        k = client.recv_into(view[got:])
        assert k
        got += k
        reads += 1
    sender.join()
    assert bytes(buf) == data
    # 16 KiB records: one read per record would take 192; records already here are
    # decrypted together.
    assert reads < len(data) // (16 << 10)


def test_both_directions_at_once_keep_their_bytes_in_order(tmp_path: Path) -> None:
    server, client = _pair(tmp_path)
    up = bytes(range(256)) * 4096
    down = bytes(reversed(range(256))) * 4096
    got: dict[str, bytes] = {}
    threads = [
        threading.Thread(target=server.sendall, args=(down,)),
        threading.Thread(target=client.sendall, args=(up,)),
        threading.Thread(target=lambda: got.setdefault("up", _read_exactly(server, len(up)))),
        threading.Thread(target=lambda: got.setdefault("down", _read_exactly(client, len(down)))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert got == {"up": up, "down": down}


def test_a_closed_peer_reads_as_zero(tmp_path: Path) -> None:
    server, client = _pair(tmp_path)
    server.sendall(b"last words")
    server.close()
    assert _read_exactly(client, 10) == b"last words"
    assert client.recv_into(bytearray(10)) == 0
