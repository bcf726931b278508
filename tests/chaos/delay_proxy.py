#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A TCP proxy that delays every byte it forwards, for the chaos farm (tests/chaos/).

This kernel has no netem qdisc, so added latency and jitter come from here: a component
connects to LISTEN (on its own host's loopback), the proxy connects to TARGET over the test
network and forwards both directions, holding each chunk for DELAY ms plus a uniform random
0..JITTER ms. Order is kept (a chunk never leaves before the one read before it), as TCP would.
The delay is read from CONTROL ("DELAY_MS JITTER_MS", missing or empty: 0 0) every 200 ms, so
the test changes it while connections are open. A refused or failed upstream closes the
downstream connection at once, so the client sees what it would see without the proxy.
"""
import argparse
import asyncio
import os
import random
import sys
import time


class Delay:
    def __init__(self, control):
        self.control = control
        self.delay_ms = 0.0
        self.jitter_ms = 0.0
        self._mtime = None

    async def watch(self):
        while True:
            try:
                st = os.stat(self.control)
                if st.st_mtime_ns != self._mtime:
                    self._mtime = st.st_mtime_ns
                    with open(self.control) as f:
                        parts = f.read().split()
                    self.delay_ms = float(parts[0]) if parts else 0.0
                    self.jitter_ms = float(parts[1]) if len(parts) > 1 else 0.0
            except (OSError, ValueError):
                self.delay_ms = self.jitter_ms = 0.0
            await asyncio.sleep(0.2)

    def due(self):
        return time.monotonic() + (self.delay_ms + random.uniform(0, self.jitter_ms)) / 1000.0


async def pump(reader, writer, delay):
    """Reads chunks as they come and writes each once its due time has passed, in order."""
    queue = asyncio.Queue()

    async def read_side():
        try:
            while True:
                data = await reader.read(65536)
                await queue.put((delay.due(), data))
                if not data:
                    return
        except (ConnectionError, OSError):
            await queue.put((0.0, b""))

    async def write_side():
        last = 0.0
        try:
            while True:
                due, data = await queue.get()
                due = max(due, last)  # never overtake the chunk read before
                last = due
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    await asyncio.gather(read_side(), write_side())


async def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listen", required=True, help="HOST:PORT to accept on")
    ap.add_argument("--to", required=True, help="HOST:PORT to forward to")
    ap.add_argument("--control", required=True, help='file holding "DELAY_MS JITTER_MS"')
    a = ap.parse_args()
    lhost, lport = a.listen.rsplit(":", 1)
    thost, tport = a.to.rsplit(":", 1)
    delay = Delay(a.control)
    asyncio.get_running_loop().create_task(delay.watch())

    async def handle(cr, cw):
        try:
            ur, uw = await asyncio.wait_for(asyncio.open_connection(thost, int(tport)), 5)
        except (OSError, asyncio.TimeoutError):
            cw.close()
            return
        await asyncio.gather(pump(cr, uw, delay), pump(ur, cw, delay))

    server = await asyncio.start_server(handle, lhost, int(lport), reuse_address=True)
    print(f"delay_proxy: {a.listen} -> {a.to} (control {a.control})", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
