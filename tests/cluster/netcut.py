#!/usr/bin/env python3
"""One node behind a network cut the test controls (tests/cluster/partition_test.sh).

  netcut.py run DIR BROKERS HTTP_PORT -- COMMAND...
      Runs COMMAND (an `svc serve` listening on 127.0.0.1:HTTP_PORT) in a network namespace of its
      own (unshare --net: as root, or with --map-root-user otherwise). Its loopback is not the
      host's, so its only way to the Kafka brokers (BROKERS: host:port,...) is this bridge:
      inside, 127.0.0.1:<each broker's port> is forwarded through a unix socket in DIR to the
      broker on the host; outside, 127.0.0.1:<a free port> is forwarded to the node's HTTP port.
      The metadata the brokers advertise (127.0.0.1:<port>) thus leads back through the bridge.
      Prints `port=N` (the node's HTTP port on the host), then reads lines on stdin:
        cut    every byte between the node and the brokers is dropped from now on, both ways, on
               open connections and new ones: a partition (no reset, no refusal: requests go
               unanswered, as when a network drops packets). The HTTP port stays reachable.
        heal   the connections open during the cut are closed (as TCP gives up on them after a long
               partition) and new ones reach the brokers again.
      answering `ok` to each. Exits with COMMAND's status; SIGTERM and SIGINT are passed to it.

  netcut.py inside DIR PORTS HTTP_PORT -- COMMAND...    (what `run` starts in the namespace)

Linux only. The mock cluster librdkafka provides (svc dev-broker) cannot cut one client's
connections: its faults act on brokers, so on every client at once (docs/decisions.md).
"""
import fcntl
import os
import signal
import socket
import struct
import subprocess
import sys
import threading


def pump(src, dst, link):
    """Copies src to dst until either closes; while the link is cut, what arrives is dropped."""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if link.get("cut"):
                continue
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listener, connect, links=None, lock=None, state=None):
    """Accepts on listener; each connection is joined to connect()'s socket by two pumps. With
    links, a connection made during a cut is not joined: what it sends is dropped."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        link = {"cut": bool(state and state["cut"]), "socks": [client]}
        if not link["cut"]:
            try:
                upstream = connect()
            except OSError:
                client.close()
                continue
            link["socks"].append(upstream)
            threading.Thread(target=pump, args=(client, upstream, link), daemon=True).start()
            threading.Thread(target=pump, args=(upstream, client, link), daemon=True).start()
        else:
            threading.Thread(target=pump, args=(client, client, link), daemon=True).start()
        if links is not None:
            with lock:
                links.append(link)


def unix_listener(path):
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(128)
    return s


def unix_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def tcp_connect(port):
    return socket.create_connection(("127.0.0.1", port))


def loopback_up():
    """Brings `lo` up in a fresh network namespace (ioctl SIOCGIFFLAGS/SIOCSIFFLAGS, IFF_UP)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifreq = struct.pack("16sh", b"lo", 0)
    flags = struct.unpack("16sh", fcntl.ioctl(s, 0x8913, ifreq))[1]
    fcntl.ioctl(s, 0x8914, struct.pack("16sh", b"lo", flags | 1))
    s.close()


def start(command, stdout=None):
    child = subprocess.Popen(command, stdout=stdout)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    return child


def inside(workdir, ports, http_port, command):
    loopback_up()
    for port in ports:
        listener = socket.create_server(("127.0.0.1", port), backlog=128)
        path = os.path.join(workdir, f"broker-{port}.sock")
        threading.Thread(target=serve, args=(listener, lambda p=path: unix_connect(p)), daemon=True).start()
    http = unix_listener(os.path.join(workdir, "http.sock"))
    threading.Thread(target=serve, args=(http, lambda: tcp_connect(http_port)), daemon=True).start()
    child = start(command)
    sys.exit(child.wait())


def run(workdir, brokers, http_port, command):
    os.makedirs(workdir, exist_ok=True)
    ports = [int(b.rsplit(":", 1)[1]) for b in brokers.split(",")]
    state, links, lock = {"cut": False}, [], threading.Lock()
    for port in ports:
        listener = unix_listener(os.path.join(workdir, f"broker-{port}.sock"))
        threading.Thread(target=serve, args=(listener, lambda p=port: tcp_connect(p), links, lock, state),
                         daemon=True).start()
    front = socket.create_server(("127.0.0.1", 0), backlog=128)
    http_path = os.path.join(workdir, "http.sock")
    threading.Thread(target=serve, args=(front, lambda: unix_connect(http_path)), daemon=True).start()
    unshare = ["unshare", "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    child = start(unshare + [sys.executable, os.path.abspath(__file__), "inside", workdir, ",".join(map(str, ports)),
                             str(http_port), "--"] + command, stdout=sys.stderr)
    print(f"port={front.getsockname()[1]}", flush=True)

    def control():
        for line in sys.stdin:
            word = line.strip()
            with lock:
                if word == "cut":
                    state["cut"] = True
                    for link in links:
                        link["cut"] = True
                elif word == "heal":
                    state["cut"] = False
                    for link in [l for l in links if l["cut"]]:
                        for s in link["socks"]:
                            try:
                                s.shutdown(socket.SHUT_RDWR)
                            except OSError:
                                pass
                        links.remove(link)
                elif word:
                    print(f"error: unknown command {word!r}", flush=True)
                    continue
            print("ok", flush=True)
    threading.Thread(target=control, daemon=True).start()
    sys.exit(child.wait())


def main():
    if len(sys.argv) < 6 or sys.argv[5] != "--" or sys.argv[1] not in ("run", "inside"):
        raise SystemExit(__doc__)
    workdir, arg, http_port, command = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[6:]
    if sys.argv[1] == "run":
        run(workdir, arg, http_port, command)
    else:
        inside(workdir, [int(p) for p in arg.split(",")], http_port, command)


if __name__ == "__main__":
    main()
