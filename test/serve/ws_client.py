"""A websocket client (RFC 6455) as small as the tests need: the
handshake, masked binary frames out, frames in (fragments joined), pings
answered, close. Written from the RFC for the tests, as the browser's own
client does what Perfetto UI needs."""

import base64
import hashlib
import os
import socket
import struct

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class HandshakeRefused(Exception):
    def __init__(self, status_line, response):
        super().__init__(status_line)
        self.status_line = status_line
        self.response = response


class WebSocket:
    def __init__(self, port, path="/websocket", origin="https://ui.perfetto.dev", timeout=30,
                 host=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}",
                 "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                 "Sec-WebSocket-Version: 13"]
        if origin:
            lines.append(f"Origin: {origin}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            response += chunk
        head, _, self._pending = response.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].decode(errors="replace")
        if " 101 " not in status_line:
            self.sock.close()
            raise HandshakeRefused(status_line, response)
        expected = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        headers = dict(line.split(b":", 1) for line in head.split(b"\r\n")[1:] if b":" in line)
        headers = {k.strip().lower(): v.strip() for k, v in headers.items()}
        if headers.get(b"sec-websocket-accept") != expected.encode():
            raise RuntimeError("the server's Sec-WebSocket-Accept is wrong")

    def _recv_exact(self, n):
        while len(self._pending) < n:
            chunk = self.sock.recv(max(65536, n - len(self._pending)))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self._pending += chunk
        out, self._pending = self._pending[:n], self._pending[n:]
        return out

    def send_frame(self, payload, opcode=0x2, fin=True):
        header = bytes([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 4096 else \
            _mask_fast(payload, mask)
        self.sock.sendall(header + mask + masked)

    def send(self, payload):
        """One binary message."""
        self.send_frame(payload)

    def recv(self):
        """The next data message's bytes; None once the server closed."""
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            opcode, fin, n = b0 & 0x0F, b0 & 0x80, b1 & 0x7F
            if b1 & 0x80:
                raise RuntimeError("a server frame must not be masked")
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(n)
            if opcode == 0x8:
                return None
            if opcode == 0x9:
                self.send_frame(payload, opcode=0xA)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if fin:
                return message

    def close(self):
        try:
            self.send_frame(struct.pack(">H", 1000), opcode=0x8)
        except OSError:
            pass
        self.sock.close()


def _mask_fast(payload, mask):
    n = len(payload)
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")
