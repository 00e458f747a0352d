"""Direct streams: the master's and workers' streaming calls over a plain TCP connection.

A message on an open gRPC-Python stream costs about a hundred microseconds of CPU at each end
and hops between threads (gRPC's and ours); a step is two messages. Over a socket that the
calling thread writes and reads itself, the same exchange is a few system calls, and a large
tensor crosses with one copy at each end. gRPC stays the protocol of record: every method
exists there, a task says over gRPC where it serves direct streams (DirectService.Describe),
and a client uses gRPC whenever no direct connection can be made (a port that a Kubernetes
Service does not expose, a peer without direct streams, TFCLUSTER_DIRECT=0). Discovery runs
in the background, so a step never waits for it.

wire.py frames messages on a socket, client.py calls (Link, DirectCall), server.py serves the
servicers' stream handlers (DirectServer).

The wire, once connected:
  client: MAGIC, u8 length + method path, u8 length + the server's token
  server: a status frame: OK, or why not (then it hangs up)
  then messages both ways, each a u64 little-endian length and that many bytes, exactly the
  messages of the gRPC call. The client's half-close (shutting its write side) ends its
  requests. A length with the top bit set is the server's final status: u32 code, details.
"""
