"""A tiny A2A agent on Python's standard library only, for a2a-sim's real-agent tests.

    python3 stub_agent.py --port PORT [--mode MODE] [--protocol 1.0|0.3] [--ignore-sigterm]

Serves its card at /.well-known/agent-card.json and answers JSON-RPC at /: `SendMessage` in
A2A 1.0 (the default: a `supportedInterfaces` JSONRPC entry), `message/send` in 0.3 (a card
`url`). What it does depends on MODE:

    ok        for each message, reads the card of the scripted agent at $KYC_URL, sends it a
              SendMessage at the card's JSONRPC URL (the incoming `traceparent` forwarded), then
              completes its own task with an artifact holding what the child answered; a
              JSON-RPC error from it fails the task with "kyc refused: CODE MESSAGE". Its data is
              written as protobuf-based SDKs write it: whole numbers as floats (20000.0), keys in
              no particular order.
    no-trace  as `ok`, but forwards no `traceparent`.
    late      the first message is completed at once, no call made; each later one calls kyc as
              `ok` does but with the `traceparent` of the message before it (a late follow-up on
              the earlier task).
    exit      prints a line to stderr and exits with status 3 before serving anything.
    hang      never binds its port (sleeps until stopped).
    garbage   answers every send with `<html>`.
    slow      sleeps $STUB_SLOW_S seconds (default 30) before answering.
    die       exits (status 4) in the middle of answering a send.
    bad-card  serves a card without a JSONRPC interface.
    parallel  for each message, calls kyc twice at once from two threads: about "zed" first, then
              30 ms later about "amy" (both with the incoming `traceparent`); completes with both.
    poke      for each message, first POSTs to $POKE_URL (another stub's /poke) and waits for it,
              then answers as `ok` does. Any stub answers POST /poke by calling kyc about
              "poked" with no `traceparent`.
    ask       asks for input first (input-required); a reply (a message carrying the stub's task
              id) completes the task, its data echoing the ids it was sent. As the SDKs do, each
              earlier status message is moved into the task's `history`.

Push configs (`CreateTaskPushNotificationConfig`, 0.3 `tasks/pushNotificationConfig/set`) are
kept, and a task that has one is pushed to its URL before each later answer; with $STUB_NO_PUSH
set they are refused (-32003).
When $STUB_TAGS is set (comma-separated), the card has one skill with those tags.
When $AUTH_TOKEN is set, every call to kyc carries it as `Authorization: Bearer`.
When $STUB_PID_FILE is set, its pid is written there first. It logs a line per request (no
clocks). SIGTERM ends it at once, unless --ignore-sigterm (then only SIGKILL does).
"""

import argparse
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = ["ok", "no-trace", "late", "exit", "hang", "garbage", "slow", "die", "bad-card", "ask",
         "parallel", "poke"]


def say(text):
    print(f"stub-agent: {text}", flush=True)


def card(port, mode, protocol):
    url = f"http://127.0.0.1:{port}/"
    base = {
        "name": "stub-agent",
        "description": "a2a-sim's test stub",
        "version": "1.0.0",
        "capabilities": {"streaming": False},
        "skills": [],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
    }
    tags = [t for t in os.environ.get("STUB_TAGS", "").split(",") if t]
    if tags:
        base["skills"] = [{"id": "stub-skill", "name": "stub skill", "description": "tags from "
                           "$STUB_TAGS", "tags": tags}]
    if protocol == "0.3":
        return {**base, "url": url, "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC"}
    binding = "HTTP+JSON" if mode == "bad-card" else "JSONRPC"
    interface = {"url": url, "protocolBinding": binding, "protocolVersion": "1.0"}
    return {**base, "supportedInterfaces": [interface]}


def first_data(message):
    for part in message.get("parts", []):
        if isinstance(part.get("data"), dict):
            return part["data"]
    return {}


def text_of(message):
    return " ".join(p["text"] for p in message.get("parts", []) if "text" in p)


def agent_message(text, data=None):
    parts = [{"text": text}] + ([{"data": data}] if data is not None else [])
    return {"messageId": "stub-msg", "role": "ROLE_AGENT", "parts": parts}


def get_json(url, body=None, headers=None):
    """GET (or POST `body`) `url`: its JSON, an HTTP error's JSON body included."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return json.loads(e.read() or b"{}")


def ask_kyc(applicant, amount, traceparent):
    """SendMessage to the scripted agent at $KYC_URL, found through its card: the answer."""
    kyc_card = get_json(os.environ["KYC_URL"] + ".well-known/agent-card.json")
    interfaces = kyc_card["supportedInterfaces"]
    rpc_url = next(i["url"] for i in interfaces if i["protocolBinding"] == "JSONRPC")
    # Keys out of order and a whole number as a float: a2a-sim records them canonically.
    data = {"applicant": applicant, "amount": float(amount)}
    message = {
        "messageId": "stub-out-1",
        "role": "ROLE_USER",
        "parts": [{"text": f"KYC check: {applicant}"}, {"data": data}],
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
    if traceparent:
        headers["traceparent"] = traceparent
    if os.environ.get("AUTH_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["AUTH_TOKEN"]
    return get_json(rpc_url, body, headers)


def answer_send(message, traceparent, n):
    """The Task that answers one message in mode ok / no-trace."""
    data = first_data(message)
    applicant = data.get("applicant", "nobody")
    amount = data.get("amount", 0)
    got = ask_kyc(applicant, amount, traceparent)
    task = {
        "id": f"stub-task-{n}",
        "contextId": f"stub-ctx-{n}",
        "history": [message, agent_message(f"Asking kyc about {applicant}")],
    }
    if "error" in got:
        refusal = f"kyc refused: {got['error'].get('code')} {got['error'].get('message')}"
        say(refusal)
        task["status"] = {"state": "TASK_STATE_FAILED", "message": agent_message(refusal)}
        return task
    child = got.get("result", {}).get("task", {})
    child_data = {}
    for artifact in child.get("artifacts", []):
        child_data.update(first_data(artifact))
    state = child.get("status", {}).get("state", "none")
    result = {"zeta": 1.0, "kyc_state": state, "kyc": child_data, "amount": float(amount)}
    artifact = {
        "artifactId": "stub-artifact",
        "name": "decision",
        "parts": [{"text": f"{applicant}: kyc {state}"}, {"data": result}],
    }
    task["artifacts"] = [artifact]
    done = agent_message(f"Done: {applicant}")
    task["status"] = {"state": "TASK_STATE_COMPLETED", "message": done}
    return task


def answer_parallel(message, traceparent, n):
    """The Task that answers one message in mode parallel: two kyc calls made at once."""
    answers = {}

    def check(applicant, wait):
        time.sleep(wait)
        answers[applicant] = ask_kyc(applicant, 1, traceparent)

    threads = [threading.Thread(target=check, args=a) for a in (("zed", 0), ("amy", 0.03))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    states = {
        who: got.get("result", {}).get("task", {}).get("status", {}).get("state", "none")
        for who, got in answers.items()
    }
    done = agent_message("Both checked", states)
    return {
        "id": f"stub-task-{n}",
        "contextId": f"stub-ctx-{n}",
        "history": [message],
        "status": {"state": "TASK_STATE_COMPLETED", "message": done},
    }


ASKED = {}  # mode ask: the stub's task id -> its history so far


def answer_ask(message, n):
    """The Task that answers one message in mode ask: a question first, then done."""
    task_id = message.get("taskId")
    if task_id not in ASKED:
        task_id = f"stub-task-{n}"
        question = agent_message("Which amount?")
        ASKED[task_id] = [message, question]
        return {
            "id": task_id,
            "contextId": f"stub-ctx-{n}",
            "history": [message],
            "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": question},
        }
    ids = {"taskId": task_id, "contextId": message.get("contextId")}
    done = agent_message(f"Got it: {text_of(message)}", ids)
    history = ASKED[task_id] + [message]
    return {
        "id": task_id,
        "contextId": message.get("contextId"),
        "history": history,
        "status": {"state": "TASK_STATE_COMPLETED", "message": done},
    }


def to_v03(value):
    """A 1.0 Task as 0.3 writes it: `kind`s, lowercase states and roles."""
    if isinstance(value, list):
        return [to_v03(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: to_v03(v) for k, v in value.items()}
    if isinstance(out.get("state"), str):
        out["state"] = out["state"].removeprefix("TASK_STATE_").lower().replace("_", "-")
    if out.get("role") in ("ROLE_AGENT", "ROLE_USER"):
        out["role"] = out["role"].removeprefix("ROLE_").lower()
        out["kind"] = "message"
    if "text" in out and "kind" not in out:
        out["kind"] = "text"
    if "data" in out and "kind" not in out:
        out["kind"] = "data"
    if "status" in out and "id" in out:
        out["kind"] = "task"
    return out


class Handler(BaseHTTPRequestHandler):
    mode = "ok"
    protocol = "1.0"
    port = 0
    sends = 0
    previous_trace = None  # mode late
    tasks = {}  # the stub's task id -> the Task it last answered
    pushes = {}  # the stub's task id -> (webhook url, token)

    def log_message(self, format, *args):
        pass  # its default lines carry a clock

    def reply(self, status, body, content_type="application/json"):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        if self.path == "/.well-known/agent-card.json":
            self.reply(200, card(self.port, self.mode, self.protocol))
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.path == "/poke":
            say("poked: calling kyc with no traceparent")
            got = ask_kyc("poked", 1, None)
            self.reply(200, {"poked": "error" not in got})
            return
        rpc_id = request.get("id")
        method = "message/send" if self.protocol == "0.3" else "SendMessage"
        asked = request.get("method")
        if asked in ("CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set"):
            self.push_config(rpc_id, request.get("params", {}))
            return
        if asked in ("GetTask", "CancelTask", "tasks/get", "tasks/cancel"):
            self.about_task(rpc_id, asked, request.get("params", {}).get("id"))
            return
        if asked != method:
            error = {"code": -32601, "message": f"method not found: {request.get('method')}"}
            self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "error": error})
            return
        Handler.sends += 1
        traceparent = self.headers.get("traceparent")
        say(f"{method} {Handler.sends} in mode {self.mode}, traceparent {traceparent}")
        message = request.get("params", {}).get("message", {})
        if self.mode == "garbage":
            self.reply(200, b"<html>not an agent</html>", "text/html")
            return
        if self.mode == "die":
            say("dying in the middle of a send")
            os._exit(4)
        if self.mode == "slow":
            time.sleep(float(os.environ.get("STUB_SLOW_S", "30")))
        if self.mode == "poke":
            get_json(os.environ["POKE_URL"], {}, {"Content-Type": "application/json"})
        if self.mode == "ask":
            task = answer_ask(message, Handler.sends)
        elif self.mode == "parallel":
            task = answer_parallel(message, traceparent, Handler.sends)
        elif self.mode == "late":
            previous, Handler.previous_trace = Handler.previous_trace, traceparent
            if previous is None:
                noted = {"state": "TASK_STATE_COMPLETED", "message": agent_message("Noted")}
                task = {"id": "stub-task-1", "contextId": "stub-ctx-1", "status": noted}
            else:
                task = answer_send(message, previous, Handler.sends)
        else:
            forwarded = traceparent if self.mode != "no-trace" else None
            task = answer_send(message, forwarded, Handler.sends)
        Handler.tasks[task["id"]] = task
        self.notify(task)
        result = to_v03(task) if self.protocol == "0.3" else {"task": task}
        self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "result": result})

    def push_config(self, rpc_id, params):
        """A push config for one of its tasks (refused with -32003 when $STUB_NO_PUSH is set)."""
        if os.environ.get("STUB_NO_PUSH"):
            error = {"code": -32003, "message": "push notifications are not supported"}
            self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "error": error})
            return
        config = params.get("pushNotificationConfig", params)
        say(f"push config for {params.get('taskId')}: {config.get('url')}")
        Handler.pushes[params.get("taskId")] = (config.get("url"), config.get("token"))
        self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "result": dict(params)})

    def notify(self, task):
        """The task's webhook, if it has a push config: sent before the answer, so every run
        sees it at the same point."""
        url, token = Handler.pushes.get(task["id"], (None, None))
        if url:
            body = to_v03(task) if self.protocol == "0.3" else {"task": task}
            headers = {"Content-Type": "application/json", "X-A2A-Notification-Token": token or ""}
            got = get_json(url, body, headers)
            say(f"pushed {task['status']['state']} to {url}: {got}")

    def about_task(self, rpc_id, method, task_id):
        """GetTask / CancelTask of a task this stub answered (its last answer, as it stands)."""
        say(f"{method} {task_id}")
        task = Handler.tasks.get(task_id)
        if task is None:
            error = {"code": -32001, "message": f"task not found: {task_id}"}
            self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "error": error})
            return
        if method in ("CancelTask", "tasks/cancel"):
            if task["status"]["state"] in ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
                                           "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"):
                error = {"code": -32002, "message": f"task not cancelable: {task_id}"}
                self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "error": error})
                return
            task = dict(task, status={"state": "TASK_STATE_CANCELED"})
            Handler.tasks[task_id] = task
        result = to_v03(task) if self.protocol == "0.3" else task
        self.reply(200, {"jsonrpc": "2.0", "id": rpc_id, "result": result})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=MODES, default="ok")
    parser.add_argument("--protocol", choices=["1.0", "0.3"], default="1.0")
    parser.add_argument("--ignore-sigterm", action="store_true")
    args = parser.parse_args()
    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, lambda *_: say("ignoring SIGTERM"))
    else:
        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if os.environ.get("STUB_PID_FILE"):
        with open(os.environ["STUB_PID_FILE"], "w") as f:
            f.write(f"{os.getpid()}\n")
    if args.mode == "exit":
        print("stub-agent: refusing to start (mode exit)", file=sys.stderr, flush=True)
        sys.exit(3)
    say(f"KYC_URL={os.environ.get('KYC_URL')}")
    if args.mode == "hang":
        say("hanging without binding the port")
        while True:
            time.sleep(60)
    Handler.mode, Handler.protocol, Handler.port = args.mode, args.protocol, args.port
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    say(f"serving on port {args.port} in mode {args.mode}, A2A {args.protocol}")
    server.serve_forever()


if __name__ == "__main__":
    main()
