#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Scripted AI provider servers: the one stand-in the tests allow (HACKING.md).

No model runs offline, so tests talk to this server, which speaks the wire
protocol of each provider kind exactly -- request shapes are checked the way
the real APIs check them, answers (streaming included) are byte-for-byte in
the real formats -- and answers from a script.

    python3 tests/scripted-provider.py --script SCRIPT.json --log LOG.json

It listens on 127.0.0.1 on a free port and prints that port as the first line
of standard output ("PORT\n"), then serves until killed. Threaded; HTTP/1.1
with keep-alive; streams use chunked transfer encoding.

Base URLs to configure:  openai     http://127.0.0.1:PORT/v1
                         ollama     http://127.0.0.1:PORT
                         anthropic  http://127.0.0.1:PORT
                         gemini     http://127.0.0.1:PORT

SCRIPT FORMAT (JSON)
--------------------
{
  "kind": "openai",          # openai | ollama | anthropic | gemini: the default
                             # kind of every turn (a turn may override it)
  "repeat_last": false,      # when the turns run out, answer with the last one
                             # again (else 500 "script exhausted")
  "turns": [TURN, ...]       # consumed in order, one per request received
}

TURN:
{
  "kind": "anthropic",       # optional override
  "when": "tool-result",     # optional: the turn answers only a request whose
                             # last message carries tool results ("tool-result")
                             # or one whose last message does not ("prompt").
                             # A request takes the first unused turn it matches,
                             # so runs that interleave (n8n sends a batch's
                             # requests at once) still get their answers
  "expect": {                # optional checks of the request; any mismatch is
                             # answered 400 (in the kind's error format) and
                             # recorded in the log as a violation
    "method": "POST",
    "path": "/v1/messages",  # exact path, without the query
    "query": {"alt": "sse"}, # subset of the query parameters
    "headers": {"x-api-key": "k"},      # exact values; names case-insensitive
    "absent_headers": ["authorization"],
    "body": {...}            # recursive subset: every key given must be there
                             # with an equal value; lists must match element-
                             # wise in length and order
  },
  "response": RESPONSE
}

RESPONSE (every key optional):
{
  "text": "Hello there",     # the answer's text, or
  "chunks": ["Hel", "lo"],   # the text as these stream pieces (default: the
                             # text cut into pieces of 4 characters)
  "tool_calls": [{"id": "call_1", "name": "get_weather",
                  "arguments": {"city": "Paris"}}],  # id optional (ollama and
                             # gemini send none unless given)
  "argument_chunks": 3,      # openai/anthropic streams: send each call's
                             # arguments JSON in this many pieces (default 3)
  "usage": {"input": 12, "output": 5},
  "stop": "end_turn",        # the raw stop reason (default: the kind's word for
                             # a normal end, or for tool calls when there are any)
  "model": "model-name",     # default: the model of the request
  "stream": true,            # override: stream or not (default: as requested)
  "initial_delay": 0.5,      # seconds before the status line
  "delay": 0.2,              # seconds before every stream chunk
  "malformed_after": 1,      # streams: after this many events, send one that is
                             # not valid JSON (then go on as normal); for non-
                             # streamed answers any value sends a broken body
  "truncate": true,          # streams: stop before the terminal event(s)
  "stream_error": {"type": "overloaded_error", "message": "Overloaded"},
                             # streams: an error event after the text, in the
                             # kind's format, and nothing after it
  "models": [{"id": "m1", "name": "Model One"}],  # a model-list answer
  "status": 429,             # an error answer in the kind's format:
  "message": "Slow down",    #   its message,
  "retry_after": "7",        #   a Retry-After header,
  "reason": "API_KEY_INVALID",  # gemini: an ErrorInfo reason in details
  "raw": {"status": 200, "headers": {"Content-Type": "text/plain"},
          "body": "anything"}  # exactly this, nothing else
}

A GET of the kind's model-list path is answered with "models" (or a default
list) unless the turn is an error. A chat request is answered with text and/or
tool calls.

LOG (--log): rewritten after every request, as
{"requests": [{"index", "turn", "kind", "method", "path", "query": {...},
               "headers": {lowercase name: value}, "body": JSON or null,
               "raw_body": text when not JSON, "stream": bool,
               "peer_port": the client's port (the same for requests on one
               kept-alive connection), "violations": ["..."]}]}
Tests assert on it (e.g. the key header, the tools sent, no violations).
"""

import argparse
import http.server
import json
import os
import socketserver
import sys
import tempfile
import threading
import time
import urllib.parse

# Keys Gemini's function declarations accept (an OpenAPI subset); others are
# refused with 400 "Invalid JSON payload received. Unknown name ...".
GEMINI_SCHEMA_KEYS = {
    "type", "format", "description", "nullable", "enum", "properties",
    "required", "items", "minItems", "maxItems", "minimum", "maximum",
    "minLength", "maxLength", "pattern", "anyOf", "title", "propertyOrdering",
    "minProperties", "maxProperties", "example",
}


def carries_tool_results(body):
    """Whether the last message of a chat request holds tool results, in
    any kind's shape"""
    if not isinstance(body, dict):
        return False
    messages = body.get("messages") or body.get("contents") or []
    last = messages[-1] if isinstance(messages, list) and messages else None
    if not isinstance(last, dict):
        return False
    if last.get("role") == "tool":                      # openai, ollama
        return True
    blocks = last.get("content") if isinstance(last.get("content"), list) else last.get("parts") or []
    return any(isinstance(b, dict) and (b.get("type") == "tool_result" or "functionResponse" in b)
               for b in blocks)                        # anthropic, gemini


class Script:
    def __init__(self, path, log_path):
        with open(path, encoding="utf-8") as f:
            self.data = json.load(f)
        self.turns = self.data.get("turns", [])
        self.kind = self.data.get("kind", "openai")
        self.repeat_last = bool(self.data.get("repeat_last", False))
        self.log_path = log_path
        self.lock = threading.Lock()
        self.used = set()
        self.requests = []

    def take_turn(self, body=None):
        with self.lock:
            answers = "tool-result" if carries_tool_results(body) else "prompt"
            for index, turn in enumerate(self.turns):
                if index not in self.used and turn.get("when", answers) == answers:
                    self.used.add(index)
                    return index, turn
            if self.repeat_last and self.turns:
                return len(self.turns) - 1, self.turns[-1]
            return None, None

    def record(self, entry):
        with self.lock:
            entry["index"] = len(self.requests)
            self.requests.append(entry)
            self.write_log()

    def write_log(self):
        if not self.log_path:
            return
        directory = os.path.dirname(os.path.abspath(self.log_path))
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".log-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"requests": self.requests}, f, indent=1)
        os.replace(tmp, self.log_path)


# ---------------------------------------------------------------- checks


def subset_mismatch(expected, actual, where="body"):
    """Differences between an expected subset and the actual value."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ["%s: expected an object, got %s" % (where, json.dumps(actual))]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append("%s.%s: missing" % (where, key))
            else:
                out += subset_mismatch(value, actual[key], "%s.%s" % (where, key))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return ["%s: expected %s, got %s" % (where, json.dumps(expected), json.dumps(actual))]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out += subset_mismatch(e, a, "%s[%d]" % (where, i))
        return out
    if expected != actual or type(expected) is not type(actual):
        return ["%s: expected %s, got %s" % (where, json.dumps(expected), json.dumps(actual))]
    return []


def is_str(v):
    return isinstance(v, str)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


def check_function_tools(tools, out):
    if not isinstance(tools, list):
        out.append("tools: not a list")
        return
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
            out.append("tools[%d]: not {type: function, function: {...}}" % i)
            continue
        if not is_str(fn.get("name")) or not fn["name"]:
            out.append("tools[%d].function.name: missing" % i)
        if "parameters" in fn and (not isinstance(fn["parameters"], dict) or fn["parameters"].get("type") != "object"):
            out.append("tools[%d].function.parameters: not an object schema" % i)


def validate_openai(method, path, query, headers, body):
    out = []
    if method == "GET" and path.endswith("/models"):
        return out
    if method != "POST" or not path.endswith("/chat/completions"):
        return ["unknown endpoint %s %s" % (method, path)]
    if not isinstance(body, dict):
        return ["body: not a JSON object"]
    if not is_str(body.get("model")) or not body["model"]:
        out.append("model: missing")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return out + ["messages: missing or empty"]
    call_ids = set()
    for i, m in enumerate(messages):
        where = "messages[%d]" % i
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            out.append("%s.role: %r" % (where, role))
            continue
        content = m.get("content")
        if role == "assistant":
            if content is not None and not is_str(content) and not isinstance(content, list):
                out.append("%s.content: not a string or null" % where)
            calls = m.get("tool_calls")
            if calls is not None:
                if not isinstance(calls, list) or not calls:
                    out.append("%s.tool_calls: not a non-empty list" % where)
                    continue
                for j, c in enumerate(calls):
                    fn = c.get("function") if isinstance(c, dict) else None
                    if not isinstance(c, dict) or not is_str(c.get("id")) or c.get("type") != "function" or not isinstance(fn, dict):
                        out.append("%s.tool_calls[%d]: not {id, type: function, function}" % (where, j))
                        continue
                    call_ids.add(c["id"])
                    if not is_str(fn.get("name")):
                        out.append("%s.tool_calls[%d].function.name: missing" % (where, j))
                    args = fn.get("arguments")
                    if not is_str(args):
                        out.append("%s.tool_calls[%d].function.arguments: must be a string" % (where, j))
                    else:
                        try:
                            if not isinstance(json.loads(args), dict):
                                raise ValueError()
                        except ValueError:
                            out.append("%s.tool_calls[%d].function.arguments: not a JSON object text" % (where, j))
            elif content is None:
                out.append("%s: neither content nor tool_calls" % where)
        elif role == "tool":
            if not is_str(m.get("tool_call_id")) or m["tool_call_id"] not in call_ids:
                out.append("%s.tool_call_id: does not answer an earlier tool call" % where)
            if not is_str(content):
                out.append("%s.content: not a string" % where)
        elif not is_str(content) and not isinstance(content, list):
            out.append("%s.content: not a string" % where)
    if "tools" in body:
        check_function_tools(body["tools"], out)
    if "stream" in body and not isinstance(body["stream"], bool):
        out.append("stream: not a boolean")
    if "stream_options" in body and not body.get("stream"):
        out.append("stream_options: only allowed when stream is true")
    for key in ("max_tokens", "max_completion_tokens"):
        if key in body and (not is_int(body[key]) or body[key] <= 0):
            out.append("%s: not a positive integer" % key)
    if "temperature" in body and (not is_num(body["temperature"]) or not 0 <= body["temperature"] <= 2):
        out.append("temperature: not a number in [0, 2]")
    return out


def validate_ollama(method, path, query, headers, body):
    out = []
    if method == "GET" and path == "/api/tags":
        return out
    if method != "POST" or path != "/api/chat":
        return ["unknown endpoint %s %s" % (method, path)]
    if not isinstance(body, dict):
        return ["body: not a JSON object"]
    if not is_str(body.get("model")) or not body["model"]:
        out.append("model: missing")
    messages = body.get("messages")
    if not isinstance(messages, list):
        return out + ["messages: missing"]
    for i, m in enumerate(messages):
        where = "messages[%d]" % i
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant", "tool"):
            out.append("%s.role: invalid" % where)
            continue
        if "content" in m and not is_str(m["content"]):
            out.append("%s.content: not a string" % where)
        for j, c in enumerate(m.get("tool_calls") or []):
            fn = c.get("function") if isinstance(c, dict) else None
            if not isinstance(fn, dict) or not is_str(fn.get("name")) or not isinstance(fn.get("arguments"), dict):
                out.append("%s.tool_calls[%d]: not {function: {name, arguments: {...}}}" % (where, j))
    if "tools" in body:
        check_function_tools(body["tools"], out)
    if "stream" in body and not isinstance(body["stream"], bool):
        out.append("stream: not a boolean")
    if "options" in body and not isinstance(body["options"], dict):
        out.append("options: not an object")
    return out


def validate_anthropic(method, path, query, headers, body):
    out = []
    if "x-api-key" not in headers:
        out.append("header x-api-key: missing")
    if "anthropic-version" not in headers:
        out.append("header anthropic-version: missing")
    if method == "GET" and path == "/v1/models":
        return out
    if method != "POST" or path != "/v1/messages":
        return out + ["unknown endpoint %s %s" % (method, path)]
    if not isinstance(body, dict):
        return out + ["body: not a JSON object"]
    if not is_str(body.get("model")) or not body["model"]:
        out.append("model: missing")
    if not is_int(body.get("max_tokens")) or body["max_tokens"] <= 0:
        out.append("max_tokens: Field required")
    if "system" in body and not is_str(body["system"]) and not isinstance(body["system"], list):
        out.append("system: not a string")
    if "temperature" in body and (not is_num(body["temperature"]) or not 0 <= body["temperature"] <= 1):
        out.append("temperature: not a number in [0, 1]")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return out + ["messages: missing or empty"]
    previous_role = None
    pending_tool_uses = set()
    for i, m in enumerate(messages):
        where = "messages[%d]" % i
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("user", "assistant"):
            out.append("%s.role: must be user or assistant" % where)
            continue
        if i == 0 and role != "user":
            out.append("messages: the first message must use the user role")
        if role == previous_role:
            out.append("%s: roles must alternate between user and assistant" % where)
        previous_role = role
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if is_str(content) else content
        if not isinstance(blocks, list) or not blocks:
            out.append("%s.content: empty" % where)
            continue
        answered = set()
        uses = set()
        for j, block in enumerate(blocks):
            bwhere = "%s.content[%d]" % (where, j)
            btype = block.get("type") if isinstance(block, dict) else None
            if btype == "text":
                if not is_str(block.get("text")) or not block["text"]:
                    out.append("%s: text content blocks must be non-empty" % bwhere)
            elif btype == "tool_use" and role == "assistant":
                if not is_str(block.get("id")) or not is_str(block.get("name")) or not isinstance(block.get("input"), dict):
                    out.append("%s: tool_use needs id, name and input (object)" % bwhere)
                else:
                    uses.add(block["id"])
            elif btype == "tool_result" and role == "user":
                if block.get("tool_use_id") not in pending_tool_uses:
                    out.append("%s: tool_result for an unknown tool_use_id" % bwhere)
                answered.add(block.get("tool_use_id"))
                c = block.get("content")
                if c is not None and not is_str(c) and not isinstance(c, list):
                    out.append("%s.content: not a string or blocks" % bwhere)
            else:
                out.append("%s: block type %r not allowed in a %s message" % (bwhere, btype, role))
        if role == "user" and pending_tool_uses - answered:
            out.append("%s: tool_use ids without a tool_result: %s" % (where, sorted(pending_tool_uses - answered)))
        pending_tool_uses = uses if role == "assistant" else set()
    for i, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict) or not is_str(tool.get("name")) or not isinstance(tool.get("input_schema"), dict) \
                or tool["input_schema"].get("type") != "object":
            out.append("tools[%d]: needs name and input_schema {type: object}" % i)
    return out


def gemini_schema_violations(schema, where):
    out = []
    if not isinstance(schema, dict):
        return ["%s: not an object" % where]
    for key in schema:
        if key not in GEMINI_SCHEMA_KEYS:
            out.append('Invalid JSON payload received. Unknown name "%s" at \'%s\'' % (key, where))
    if schema.get("type") == "object" and "properties" in schema and not schema["properties"]:
        out.append("%s.properties: should be non-empty for OBJECT type" % where)
    if "type" in schema and not is_str(schema["type"]):
        out.append("%s.type: must be a string" % where)
    for name, sub in (schema.get("properties") or {}).items():
        out += gemini_schema_violations(sub, "%s.properties[%s]" % (where, name))
    for name in schema.get("required") or []:
        if name not in (schema.get("properties") or {}):
            out.append("%s.required: property %r is not defined" % (where, name))
    if "items" in schema:
        out += gemini_schema_violations(schema["items"], where + ".items")
    for i, sub in enumerate(schema.get("anyOf") or []):
        out += gemini_schema_violations(sub, "%s.anyOf[%d]" % (where, i))
    return out


def validate_gemini(method, path, query, headers, body):
    out = []
    if "x-goog-api-key" not in headers and "key" not in query:
        out.append("header x-goog-api-key: missing")
    if method == "GET" and path == "/v1beta/models":
        return out
    if method != "POST" or not path.startswith("/v1beta/models/") or \
            not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
        return out + ["unknown endpoint %s %s" % (method, path)]
    if path.endswith(":streamGenerateContent") and query.get("alt") != "sse":
        out.append("streamGenerateContent without alt=sse answers a JSON array, not SSE")
    if not isinstance(body, dict):
        return out + ["body: not a JSON object"]
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return out + ["contents: missing or empty"]
    for i, c in enumerate(contents):
        where = "contents[%d]" % i
        if not isinstance(c, dict) or c.get("role") not in ("user", "model"):
            out.append("%s.role: must be user or model" % where)
            continue
        parts = c.get("parts")
        if not isinstance(parts, list) or not parts:
            out.append("%s.parts: must not be empty" % where)
            continue
        for j, part in enumerate(parts):
            pwhere = "%s.parts[%d]" % (where, j)
            kinds = [k for k in ("text", "functionCall", "functionResponse", "inlineData") if k in part] \
                if isinstance(part, dict) else []
            if len(kinds) != 1:
                out.append("%s: exactly one of text, functionCall, functionResponse" % pwhere)
                continue
            if kinds[0] == "functionCall" and (c["role"] != "model" or not is_str(part["functionCall"].get("name"))
                                              or not isinstance(part["functionCall"].get("args", {}), dict)):
                out.append("%s.functionCall: needs name and args (object) in a model turn" % pwhere)
            if kinds[0] == "functionResponse":
                fr = part["functionResponse"]
                if c["role"] != "user" or not is_str(fr.get("name")) or not fr["name"] \
                        or not isinstance(fr.get("response"), dict):
                    out.append("%s.functionResponse: needs name and response (object) in a user turn" % pwhere)
    si = body.get("systemInstruction")
    if si is not None and (not isinstance(si, dict) or not isinstance(si.get("parts"), list)):
        out.append("systemInstruction: not {parts: [...]}")
    for i, tool in enumerate(body.get("tools") or []):
        for j, decl in enumerate((tool or {}).get("functionDeclarations") or []):
            where = "tools[%d].function_declarations[%d]" % (i, j)
            if not is_str(decl.get("name")):
                out.append(where + ".name: missing")
            if "parameters" in decl:
                out += gemini_schema_violations(decl["parameters"], where + ".parameters")
    if "generationConfig" in body and not isinstance(body["generationConfig"], dict):
        out.append("generationConfig: not an object")
    return out


VALIDATORS = {
    "openai": validate_openai,
    "ollama": validate_ollama,
    "anthropic": validate_anthropic,
    "gemini": validate_gemini,
}


# ---------------------------------------------------------------- answers

ERROR_TYPES = {
    "openai": {400: ("invalid_request_error", None), 401: ("invalid_request_error", "invalid_api_key"),
               403: ("invalid_request_error", None), 404: ("invalid_request_error", "model_not_found"),
               429: ("requests", "rate_limit_exceeded"), 500: ("server_error", None),
               503: ("server_error", None)},
    "anthropic": {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                  404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                  500: "api_error", 529: "overloaded_error"},
    "gemini": {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
               429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"},
}


def error_body(kind, status, message, reason=None):
    if kind == "openai":
        etype, code = ERROR_TYPES["openai"].get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
        return {"error": {"message": message, "type": etype, "param": None, "code": code}}
    if kind == "ollama":
        return {"error": message}
    if kind == "anthropic":
        etype = ERROR_TYPES["anthropic"].get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": etype, "message": message}}
    body = {"error": {"code": status, "message": message,
                      "status": ERROR_TYPES["gemini"].get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")}}
    if reason:
        body["error"]["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                     "reason": reason, "domain": "googleapis.com"}]
    return body


def default_stop(kind, has_calls):
    return {"openai": "tool_calls" if has_calls else "stop",
            "ollama": "stop",
            "anthropic": "tool_use" if has_calls else "end_turn",
            "gemini": "STOP"}[kind]


def text_chunks(resp):
    if "chunks" in resp:
        return list(resp["chunks"])
    text = resp.get("text", "")
    return [text[i:i + 4] for i in range(0, len(text), 4)] if text else []


def split_string(s, n):
    n = max(1, min(n, len(s))) if s else 1
    size = -(-len(s) // n) if s else 0
    return [s[i:i + size] for i in range(0, len(s), size)] if s else [""]


def models_body(kind, models):
    now = int(time.time())
    if kind == "openai":
        return {"object": "list", "data": [{"id": m["id"], "object": "model", "created": now,
                                             "owned_by": "scripted"} for m in models]}
    if kind == "ollama":
        return {"models": [{"name": m["id"], "model": m["id"], "modified_at": "2025-01-01T00:00:00Z",
                            "size": 1000, "digest": "0" * 64,
                            "details": {"format": "gguf", "family": "llama"}} for m in models]}
    if kind == "anthropic":
        data = [{"type": "model", "id": m["id"], "display_name": m.get("name", m["id"]),
                 "created_at": "2025-01-01T00:00:00Z"} for m in models]
        return {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None}
    return {"models": [{"name": "models/" + m["id"], "displayName": m.get("name", m["id"]),
                        "supportedGenerationMethods": ["generateContent", "countTokens"]} for m in models]
            + [{"name": "models/embedding-001", "displayName": "Embedding",
                "supportedGenerationMethods": ["embedContent"]}]}


class Answer:
    """What to send: status, headers, and either a body or stream events."""

    def __init__(self, status=200, content_type="application/json", body=None, events=None,
                 headers=None, terminal=None):
        self.status = status
        self.content_type = content_type
        self.body = body
        self.events = events
        self.headers = headers or {}
        self.terminal = terminal or []


def sse(data, event=None, crlf=False):
    nl = "\r\n" if crlf else "\n"
    text = ""
    if event:
        text += "event: " + event + nl
    text += "data: " + (data if isinstance(data, str) else json.dumps(data)) + nl + nl
    return text.encode()


def build_chat(kind, resp, req_body, model, stream):
    usage = resp.get("usage", {})
    tin, tout = usage.get("input", 0), usage.get("output", 0)
    calls = resp.get("tool_calls", [])
    stop = resp.get("stop", default_stop(kind, bool(calls)))
    text = resp.get("text", "".join(resp.get("chunks", [])))
    pieces = text_chunks(resp)
    nargs = resp.get("argument_chunks", 3)
    now = int(time.time())
    events, terminal = [], []

    if kind == "openai":
        if not stream:
            message = {"role": "assistant", "content": text if text or not calls else None, "refusal": None}
            if calls:
                message["tool_calls"] = [{"id": c.get("id", "call_%d" % i), "type": "function",
                                          "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
                                         for i, c in enumerate(calls)]
            return Answer(body={"id": "chatcmpl-scripted", "object": "chat.completion", "created": now,
                                "model": model, "choices": [{"index": 0, "message": message, "logprobs": None,
                                                             "finish_reason": stop}],
                                "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                                          "total_tokens": tin + tout}})

        def chunk(delta, finish=None):
            return sse({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": now,
                        "model": model, "system_fingerprint": "fp_scripted",
                        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})
        events.append(chunk({"role": "assistant", "content": "", "refusal": None}))
        events += [chunk({"content": p}) for p in pieces]
        for i, c in enumerate(calls):
            events.append(chunk({"tool_calls": [{"index": i, "id": c.get("id", "call_%d" % i), "type": "function",
                                                 "function": {"name": c["name"], "arguments": ""}}]}))
            for piece in split_string(json.dumps(c.get("arguments", {})), nargs):
                events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
        terminal.append(chunk({}, stop))
        if ((req_body or {}).get("stream_options") or {}).get("include_usage"):
            terminal.append(sse({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": now,
                                 "model": model, "choices": [],
                                 "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                                           "total_tokens": tin + tout}}))
        terminal.append(b"data: [DONE]\n\n")
        return Answer(content_type="text/event-stream", events=events, terminal=terminal)

    if kind == "ollama":
        created = "2025-01-01T00:00:00.000000Z"
        ollama_calls = []
        for c in calls:
            fc = {"function": {"name": c["name"], "arguments": c.get("arguments", {})}}
            if "id" in c:
                fc["id"] = c["id"]
            ollama_calls.append(fc)
        final = {"model": model, "created_at": created, "message": {"role": "assistant", "content": ""},
                 "done": True, "done_reason": stop, "total_duration": 1000, "load_duration": 10,
                 "prompt_eval_count": tin, "prompt_eval_duration": 100, "eval_count": tout, "eval_duration": 500}
        if not stream:
            final["message"]["content"] = text
            if ollama_calls:
                final["message"]["tool_calls"] = ollama_calls
            return Answer(body=final)

        def line(obj):
            return (json.dumps(obj) + "\n").encode()
        events += [line({"model": model, "created_at": created, "message": {"role": "assistant", "content": p},
                         "done": False}) for p in pieces]
        if ollama_calls:
            events.append(line({"model": model, "created_at": created,
                                "message": {"role": "assistant", "content": "", "tool_calls": ollama_calls},
                                "done": False}))
        terminal.append(line(final))
        return Answer(content_type="application/x-ndjson", events=events, terminal=terminal)

    if kind == "anthropic":
        if not stream:
            content = [{"type": "text", "text": text}] if text else []
            content += [{"type": "tool_use", "id": c.get("id", "toolu_%d" % i), "name": c["name"],
                         "input": c.get("arguments", {})} for i, c in enumerate(calls)]
            return Answer(body={"id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
                                "content": content, "stop_reason": stop, "stop_sequence": None,
                                "usage": {"input_tokens": tin, "output_tokens": tout}})
        events.append(sse({"type": "message_start", "message": {
            "id": "msg_scripted", "type": "message", "role": "assistant", "content": [], "model": model,
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": 1}}}, "message_start"))
        index = 0
        if pieces:
            events.append(sse({"type": "content_block_start", "index": 0,
                               "content_block": {"type": "text", "text": ""}}, "content_block_start"))
            events.append(sse({"type": "ping"}, "ping"))
            events += [sse({"type": "content_block_delta", "index": 0,
                            "delta": {"type": "text_delta", "text": p}}, "content_block_delta") for p in pieces]
            events.append(sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
            index = 1
        for i, c in enumerate(calls):
            events.append(sse({"type": "content_block_start", "index": index,
                               "content_block": {"type": "tool_use", "id": c.get("id", "toolu_%d" % i),
                                                 "name": c["name"], "input": {}}}, "content_block_start"))
            for piece in split_string(json.dumps(c.get("arguments", {})), nargs):
                events.append(sse({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "input_json_delta", "partial_json": piece}},
                                  "content_block_delta"))
            events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
            index += 1
        terminal.append(sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                             "usage": {"output_tokens": tout}}, "message_delta"))
        terminal.append(sse({"type": "message_stop"}, "message_stop"))
        return Answer(content_type="text/event-stream", events=events, terminal=terminal)

    # gemini
    usage_meta = {"promptTokenCount": tin, "candidatesTokenCount": tout, "totalTokenCount": tin + tout}
    gemini_calls = []
    for c in calls:
        fc = {"name": c["name"], "args": c.get("arguments", {})}
        if "id" in c:
            fc["id"] = c["id"]
        gemini_calls.append({"functionCall": fc})
    if not stream:
        parts = ([{"text": text}] if text else []) + gemini_calls
        return Answer(body={"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": stop,
                                            "index": 0}],
                            "usageMetadata": usage_meta, "modelVersion": model,
                            "responseId": "scripted"})

    def gchunk(parts, finish=None, with_usage=False):
        cand = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        obj = {"candidates": [cand], "modelVersion": model, "responseId": "scripted"}
        obj["usageMetadata"] = usage_meta if with_usage else {"promptTokenCount": tin, "totalTokenCount": tin}
        return sse(obj, crlf=True)
    events += [gchunk([{"text": p}]) for p in pieces]
    if gemini_calls:
        events.append(gchunk(gemini_calls))
    terminal.append(gchunk([{"text": ""}], stop, True))
    return Answer(content_type="text/event-stream", events=events, terminal=terminal)


def malformed_event(kind):
    if kind == "ollama":
        return b'{"model": "broken", "message": {"content": \n'
    if kind == "anthropic":
        return b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": \n\n'
    if kind == "gemini":
        return b'data: {"candidates": [{"content": \r\n\r\n'
    return b'data: {"id": "chatcmpl-scripted", "choices": [\n\n'


def stream_error_event(kind, err):
    etype = err.get("type", "overloaded_error")
    message = err.get("message", "Overloaded")
    if kind == "ollama":
        return (json.dumps({"error": message}) + "\n").encode()
    if kind == "anthropic":
        return sse({"type": "error", "error": {"type": etype, "message": message}}, "error")
    if kind == "gemini":
        return sse({"error": {"code": 500, "message": message, "status": "INTERNAL"}}, crlf=True)
    return sse({"error": {"message": message, "type": etype, "param": None, "code": None}})


# ---------------------------------------------------------------- the server


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-provider/1"
    # As the providers' own servers do (nginx, Go, Node set TCP_NODELAY): on a
    # kept-alive connection a stream's small writes would otherwise wait for
    # the client's delayed ACK (40 ms) each
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet: tests read the JSON log
        pass

    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def handle_any(self):
        script = self.server.script
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = dict(urllib.parse.parse_qsl(url.query))
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        body = None
        raw_text = None
        if raw:
            try:
                body = json.loads(raw.decode("utf-8"))
            except ValueError:
                raw_text = raw.decode("utf-8", "replace")

        index, turn = script.take_turn(body)
        kind = (turn or {}).get("kind", script.kind)
        resp = (turn or {}).get("response", {})

        violations = []
        if raw and body is None:
            violations.append("body: not valid JSON")
        elif self.command == "POST" and "application/json" not in headers.get("content-type", ""):
            violations.append("Content-Type: not application/json")
        violations += VALIDATORS[kind](self.command, path, query, headers, body)

        expect = (turn or {}).get("expect", {})
        if "method" in expect and expect["method"] != self.command:
            violations.append("method: expected %s, got %s" % (expect["method"], self.command))
        if "path" in expect and expect["path"] != path:
            violations.append("path: expected %s, got %s" % (expect["path"], path))
        for k, v in expect.get("query", {}).items():
            if query.get(k) != v:
                violations.append("query %s: expected %r, got %r" % (k, v, query.get(k)))
        for k, v in expect.get("headers", {}).items():
            if headers.get(k.lower()) != v:
                violations.append("header %s: expected %r, got %r" % (k, v, headers.get(k.lower())))
        for k in expect.get("absent_headers", []):
            if k.lower() in headers:
                violations.append("header %s: must be absent" % k)
        if "body" in expect:
            violations += subset_mismatch(expect["body"], body)

        if kind == "gemini":
            requested_stream = path.endswith(":streamGenerateContent")
        elif kind == "ollama":
            requested_stream = (body or {}).get("stream", True) is not False
        else:
            requested_stream = bool((body or {}).get("stream", False))

        script.record({"turn": index, "kind": kind, "method": self.command, "path": path, "query": query,
                       "headers": headers, "body": body, "raw_body": raw_text, "stream": requested_stream,
                       "peer_port": self.client_address[1], "violations": violations})

        if turn is None:
            self.send_json(500, error_body(kind, 500, "script exhausted: no turn left for this request"))
            return
        if violations:
            self.send_json(400, error_body(kind, 400, "scripted-provider: " + "; ".join(violations)))
            return

        time.sleep(resp.get("initial_delay", 0))

        if "raw" in resp:
            raw_resp = resp["raw"]
            data = raw_resp.get("body", "").encode()
            self.send_response(raw_resp.get("status", 200))
            hdrs = raw_resp.get("headers", {"Content-Type": "text/plain"})
            for k, v in hdrs.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return

        if "status" in resp and resp["status"] >= 300:
            status = resp["status"]
            extra = {}
            if "retry_after" in resp:
                extra["Retry-After"] = str(resp["retry_after"])
            self.send_json(status, error_body(kind, status, resp.get("message", "scripted error %d" % status),
                                              resp.get("reason")), extra)
            return

        is_models = self.command == "GET"
        if is_models:
            models = resp.get("models", [{"id": "scripted-model", "name": "Scripted Model"}])
            self.send_json(200, models_body(kind, models))
            return

        model = resp.get("model") or (body or {}).get("model") or path.rsplit("/", 1)[-1].split(":")[0]
        stream = resp.get("stream", requested_stream)
        answer = build_chat(kind, resp, body, model, stream)

        if answer.events is None:
            data = json.dumps(answer.body).encode()
            if "malformed_after" in resp:
                data = data[: len(data) // 2]
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return

        self.send_response(200)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

        delay = resp.get("delay", 0)
        events = list(answer.events)
        if "malformed_after" in resp:
            events.insert(min(resp["malformed_after"], len(events)), malformed_event(kind))
        if "stream_error" in resp:
            events.append(stream_error_event(kind, resp["stream_error"]))
        elif not resp.get("truncate"):
            events += answer.terminal
        try:
            for event in events:
                if delay:
                    time.sleep(delay)
                self.write_chunk(event)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_bind(self):
        # HTTPServer.server_bind resolves the host's FQDN, which can hang for
        # seconds without DNS; loopback needs no name.
        socketserver.TCPServer.server_bind(self)
        self.server_name = "127.0.0.1"
        self.server_port = self.server_address[1]


def main():
    parser = argparse.ArgumentParser(description="Scripted AI provider server (see the docstring).")
    parser.add_argument("--script", required=True)
    parser.add_argument("--log")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    server = Server(("127.0.0.1", args.port), Handler)
    server.script = Script(args.script, args.log)
    server.script.write_log()
    sys.stdout.write("%d\n" % server.server_address[1])
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
