#!/usr/bin/env python3
"""Reference model: a straightforward Python `a2a-sim run --format json`, for scale.

The speed target of the loading issue is stated against this script: `a2a-sim run --format json`
on the generated 100,000-step scenario takes at most 1/100 of this model's time on the same file
(`scripts/bench.py` measures both). It is the naive way to write the tool: PyYAML's C loader
(`yaml.CSafeLoader`, libyaml) reads the whole document into dicts and lists, a loop over the steps
simulates each one with plain dicts as tasks, the whole report is built in memory and written with
`json.dump(indent=2)`.

It is a model, not a second implementation: it covers only what `a2a-sim-gen` files use (agents
with tenant, clearance, scopes, required scopes, skills, capabilities and a scripted handler of
`working`, `message`, `input_required`, `auth_required`, `artifact`, `delegate`, `completed`,
`failed`; callers; the steps `send`, `stream`, `get`, `cancel`, `reply`, `set_push_config` and
`discover`; `policy.max_depth` and `policy.push_allowed_hosts`). It checks nothing of the file
(no located errors, no warnings), has no clock, faults, retries, scheduler interleaving, imports,
overrides or expectations, and its report has the same top-level shape as a2a-sim's
(`steps`, `tasks`, `denials`, `pushes`, `errors`) but is not byte-identical to it: ticks, ids and
some admission details differ. It does the same kind and amount of work per step, which is what a
timing comparison needs.

    python3 scripts/baseline_model.py SCENARIO.yaml > report.json
"""

import json
import sys

import yaml

LEVELS = ["public", "internal", "confidential", "restricted"]
TERMINAL = {"completed", "failed", "canceled", "rejected"}


class Model:
    def __init__(self, doc):
        self.name = doc.get("name", "scenario")
        policy = doc.get("policy") or {}
        self.max_depth = policy.get("max_depth", 8)
        self.push_hosts = policy.get("push_allowed_hosts", [])
        self.levels = doc.get("classification_levels", LEVELS)
        self.agents = {a["name"]: a for a in doc.get("agents", [])}
        self.callers = {c["id"]: c for c in doc.get("callers", [])}
        self.tasks = {}
        self.order = []
        self.aliases = {}
        self.denials = []
        self.pushes = []
        self.errors = []
        self.push_configs = {}
        self.tick = 0
        self.n_ctx = self.n_msg = self.n_art = 0

    def level(self, name):
        return self.levels.index(name) if name in self.levels else 0

    def admit(self, step, who, chain, agent):
        codes, details = [], []
        if agent["name"] in chain:
            codes.append("cycle")
            details.append(f"`{agent['name']}` is already in the chain")
        if len(chain) > self.max_depth:
            codes.append("depth")
            details.append(f"the chain is {len(chain)} long, the limit is {self.max_depth}")
        if agent.get("tenant") != who.get("tenant"):
            codes.append("tenant")
            details.append(f"`{agent['name']}` serves tenant `{agent.get('tenant')}`, the caller is of tenant `{who.get('tenant')}`")
        if self.level(agent.get("clearance")) < self.level(who.get("classification")):
            codes.append("classification")
            details.append(f"`{agent['name']}` is cleared for `{agent.get('clearance')}`, the data is `{who.get('classification')}`")
        missing = [s for s in agent.get("required_scopes", []) if s not in who.get("scopes", [])]
        if missing:
            codes.append("scope")
            details.append(f"missing scopes {', '.join(missing)}")
        if codes:
            self.denials.append({"step": step, "caller": chain[-1], "callee": agent["name"], "codes": codes, "details": details})
        return codes

    def status(self, task, state, message=None, events=None):
        self.tick += 1
        entry = {"tick": self.tick, "state": state}
        if message is not None:
            entry["message"] = message
            self.n_msg += 1
            task["messages"].append({"message_id": f"msg-{self.n_msg}", "role": "agent", "text": message})
        task["history"].append(entry)
        task["state"] = state
        if events is not None:
            events.append({"event": "status", "task": task["id"], **entry})
        push = self.push_configs.get(task["id"])
        if push and state != "submitted":
            self.pushes.append({"tick": self.tick, "task": task["id"], "url": push["url"], "state": state, "token": "[redacted]"})

    def create(self, step, who, chain, agent, text, context=None, parent=None):
        if self.admit(step, who, chain, agent):
            return None
        tid = f"task-{len(self.tasks) + 1}"
        if context is None:
            self.n_ctx += 1
            context = f"ctx-{self.n_ctx}"
        self.tick += 1
        self.n_msg += 1
        task = {"id": tid, "context_id": context, "agent": agent["name"], "caller": chain[0], "delegation_chain": list(chain),
                "parent": parent, "state": "submitted", "history": [{"tick": self.tick, "state": "submitted", "message": text}],
                "messages": [{"message_id": f"msg-{self.n_msg}", "role": "user", "text": text}], "artifacts": [], "pc": 0}
        self.tasks[tid] = task
        self.order.append(tid)
        return task

    def drive(self, step, task, events=None):
        """Runs the task's handler from where it stopped to its next pause or its end."""
        agent = self.agents[task["agent"]]
        script = agent.get("handler", [])
        while task["pc"] < len(script) and task["state"] not in TERMINAL:
            item = script[task["pc"]]
            task["pc"] += 1
            op, arg = (item, None) if isinstance(item, str) else next(iter(item.items()))
            if op == "working":
                self.status(task, "working", arg, events)
            elif op == "message":
                self.n_msg += 1
                task["messages"].append({"message_id": f"msg-{self.n_msg}", "role": "agent", "text": arg})
            elif op in ("input_required", "auth_required"):
                self.status(task, op, arg, events)
                return
            elif op == "artifact":
                self.n_art += 1
                art = {"artifact_id": f"artifact-{self.n_art}", "name": arg.get("name")}
                if "text" in arg:
                    art["text"] = arg["text"]
                if "data" in arg:
                    art["data"] = arg["data"]
                task["artifacts"].append(art)
                if events is not None:
                    events.append({"event": "artifact", "task": task["id"], "artifact_id": art["artifact_id"]})
            elif op == "delegate":
                who = {"tenant": agent.get("tenant"), "classification": agent.get("clearance"), "scopes": agent.get("scopes", [])}
                callee = self.agents.get(arg.get("to"))
                child = callee and self.create(step, who, task["delegation_chain"] + [agent["name"]], callee, arg.get("text", ""),
                                               task["context_id"], task["id"])
                if child:
                    self.drive(step, child)
                if (not child or child["state"] != "completed") and arg.get("on_error") != "continue":
                    self.status(task, "failed", "a delegation failed", events)
            elif op in ("completed", "failed"):
                self.status(task, op, arg, events)

    def target(self, who, to):
        if isinstance(to, dict):
            ranking = self.rank(who, to.get("discover", []), 1)
            return self.agents[ranking[0]["agent"]] if ranking else None
        return self.agents.get(to)

    def rank(self, who, tags, limit):
        scored = []
        for agent in self.agents.values():
            if agent.get("tenant") != who.get("tenant") or self.level(agent.get("clearance")) < self.level(who.get("classification")):
                continue
            score = sum(1 for s in agent.get("skills", []) for t in s.get("tags", []) if t in tags)
            if score:
                scored.append((-score, agent["name"]))
        scored.sort()
        return [{"agent": name, "score": -score} for score, name in scored[:limit]]

    def lookup(self, step, args):
        if "task" in args:
            tid = self.aliases.get(args["task"])
            if tid is None:
                self.errors.append({"step": step, "code": "task_not_found", "detail": f"`{args['task']}` names no task: its send created none"})
            return self.tasks.get(tid)
        task = self.tasks.get(args.get("task_id"))
        if task is None:
            self.errors.append({"step": step, "code": "task_not_found", "detail": f"task `{args.get('task_id')}` not found"})
        return task

    def step(self, n, step):
        op, args = next(iter(step.items()))
        who = self.callers.get(args.get("caller"), {})
        result = {}
        if op in ("send", "stream"):
            agent = self.target(who, args.get("to"))
            context = args.get("context")
            if "context_of" in args and self.aliases.get(args["context_of"]) in self.tasks:
                context = self.tasks[self.aliases[args["context_of"]]]["context_id"]
            task = agent and self.create(n, who, [args["caller"]], agent, args.get("text", ""), context)
            if agent and not task:
                result = {"denied": self.denials[-1]["codes"]}
            elif task:
                if "as" in args:
                    self.aliases[args["as"]] = task["id"]
                events = [{"event": "task", "task": task["id"], "state": "submitted"}] if op == "stream" else None
                push = args.get("push")
                if isinstance(push, dict) and self.agents[task["agent"]].get("capabilities", {}).get("push_notifications"):
                    self.push_configs[task["id"]] = push
                self.drive(n, task, events)
                result = {"task": task["id"], "state": task["state"]}
                if events is not None:
                    events.append({"event": "task", "task": task["id"], "state": task["state"]})
                    result["events"] = events
        elif op == "get":
            task = self.lookup(n, args)
            if task:
                result = {"task": task["id"], "state": task["state"]}
        elif op == "cancel":
            task = self.lookup(n, args)
            if task and task["state"] not in TERMINAL:
                self.status(task, "canceled")
                result = {"task": task["id"], "state": "canceled"}
            elif task:
                self.errors.append({"step": n, "code": "task_not_cancelable", "detail": f"task `{task['id']}` is {task['state']}"})
        elif op == "reply":
            task = self.lookup(n, args)
            if task and task["state"] in ("input_required", "auth_required"):
                self.n_msg += 1
                task["messages"].append({"message_id": f"msg-{self.n_msg}", "role": "user", "text": args.get("text", "")})
                self.drive(n, task)
                result = {"task": task["id"], "state": task["state"]}
        elif op == "set_push_config":
            task = self.lookup(n, args)
            if task:
                agent = self.agents[task["agent"]]
                host = args.get("url", "").split("//", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()
                if not agent.get("capabilities", {}).get("push_notifications"):
                    self.errors.append({"step": n, "code": "push_not_supported", "detail": f"`{agent['name']}` does not support push notifications"})
                elif not any(host == h or (h.startswith("*.") and host.endswith(h[1:])) for h in self.push_hosts):
                    self.errors.append({"step": n, "code": "host_not_allowed", "detail": f"push host `{host}` is not allowed", "task": task["id"]})
                else:
                    self.push_configs[task["id"]] = args
                    result = {"task": task["id"], "state": task["state"]}
        elif op == "discover":
            result = {"ranking": self.rank(who, args.get("tags", []), args.get("limit", 10))}
        return {"step": n, "op": op, "caller": args.get("caller"), "result": result}

    def report(self, steps):
        out = [self.step(n, s) for n, s in enumerate(steps, 1)]
        tasks = []
        for tid in self.order:
            t = dict(self.tasks[tid])
            del t["pc"]
            tasks.append(t)
        return {"format_version": 1, "scenario": self.name, "steps": out, "tasks": tasks, "denials": self.denials,
                "pushes": self.pushes, "errors": self.errors}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = yaml.load(f, Loader=yaml.CSafeLoader)
    json.dump(Model(doc).report(doc.get("steps", [])), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
