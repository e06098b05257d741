"""A small OpenAI-protocol server on 127.0.0.1 for tests: ``POST /v1/chat/completions``
answers with the text a test's ``reply(messages, n)`` returns (``n``: the 1-based request
count), or with an HTTP error when it returns an int. It serves from a daemon thread and
stops by itself after ``deadline`` seconds (or when the ``with`` block ends)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class OpenAIServer:
    def __init__(self, reply, deadline: float = 300.0):
        self.reply = reply
        self.requests: list[list[dict]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):          # quiet
                pass

            def do_POST(self):
                size = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(size) or b"{}")
                with outer._lock:
                    outer.requests.append(body.get("messages", []))
                    n = len(outer.requests)
                out = outer.reply(body.get("messages", []), n)
                if isinstance(out, int):
                    data = json.dumps({"error": {"message": "scripted failure",
                                                 "type": "server_error"}}).encode()
                    self.send_response(out)
                else:
                    data = json.dumps({
                        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": out}}],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                  "total_tokens": 18}}).encode()
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._timer = threading.Timer(deadline, self.stop)
        self._timer.daemon = True

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self._timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()
