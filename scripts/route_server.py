#!/usr/bin/env python3
"""route_server.py - rigdeck's built-in route server for endpoint jobs.

Owns: turning a job's stored `endpoint.routes` (execution.md section 6,
seed 001's "Routes") into a FastAPI app served by uvicorn.  The agent runs
it in an endpoint worker that has routes and no start_command:

    python3 route_server.py --routes ROUTES.json --code DIR --host H --port P

ROUTES.json holds the stored array, as core/jobs/jobspec_run.c writes it:
    [{"verb": "POST", "path": "/predict", "file": "serve.py",
      "function": "predict", "positional": false,
      "params": [{"name": "x", "type": "float", "optional": false,
                  "default": null}, ...]}, ...]
`type` is string, integer, float, boolean, object or list; an optional
param's `default` is Python source ("5", "None", "'text'").  DIR is the
model's code; each `file` is relative to it.

What it answers:
  POST PATH with a JSON object body -> 200 and FUNCTION's return value as
      JSON; the params are checked by type, optional ones take their
      default, and FUNCTION gets them as keywords, or in declared order when
      the route is positional.
  a missing, mistyped or undeclared param -> 422, FastAPI's own detail.
  FUNCTION raising -> 500 {"detail": "TYPE: MESSAGE"}; the traceback goes
      to stderr (the worker's log), never to the client.
  any other path -> 404; another verb on a route's path -> 405.
One access line per request goes to stdout (uvicorn's access log).

At start-up every route is checked before anything listens: a bad routes
file, a file outside DIR or missing, an import that fails, a missing
function or one whose signature cannot take the declared params, or a
default that is not a Python literal of its type ends the program with
exit status 2 and one line on stderr naming the route and the cause.  A
port that cannot be bound is uvicorn's exit 1.
"""
import argparse
import ast
import importlib.util
import inspect
import json
import os
import sys
import traceback
from typing import Any, List, Optional

try:
    import pydantic
    # Its types and errors are pydantic 1's (Debian's python3-fastapi, and
    # FastAPI before 0.100); pydantic 2 would fail at the first route, so
    # say what is wrong instead.
    if not pydantic.VERSION.startswith("1."):
        print(f"route_server: pydantic {pydantic.VERSION}: the route server needs pydantic 1.x "
              "(with FastAPI before 0.100) in the worker's Python", file=sys.stderr)
        sys.exit(2)
    import uvicorn
    from fastapi import Body, FastAPI
    from fastapi.encoders import jsonable_encoder
    from fastapi.responses import JSONResponse
except ImportError as e:
    print(f"route_server: {e.name or e}: the route server needs fastapi, pydantic 1.x and uvicorn "
          "in the worker's Python", file=sys.stderr)
    sys.exit(2)

PROG = "route_server"


def die(msg):
    """A start-up refusal: one line, exit 2, nothing listening yet."""
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


# ---- the declared types --------------------------------------------------
#
# JSON already tells strings, numbers, booleans, objects and lists apart, so
# a param must arrive as its own JSON type: pydantic's lax defaults would
# turn 1.5 into the integer 1, 5 into the string "5" and "yes" into True,
# calling the model with a value its client never sent.  The one widening
# kept is an integer for a float (clients write 3 for 3.0), given as float.

class JsonFloat(float):
    @classmethod
    def __get_validators__(cls):
        yield cls.validate

    @classmethod
    def validate(cls, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise pydantic.errors.FloatError()
        return float(v)


class JsonObject(dict):
    @classmethod
    def __get_validators__(cls):
        yield cls.validate

    @classmethod
    def validate(cls, v):
        # pydantic's dict would also take a list of pairs.
        if not isinstance(v, dict):
            raise pydantic.errors.DictError()
        return v


TYPES = {
    "string": pydantic.StrictStr,
    "integer": pydantic.StrictInt,
    "float": JsonFloat,
    "boolean": pydantic.StrictBool,
    "object": JsonObject,
    "list": List[Any],
}


class RouteBody(pydantic.BaseModel):
    class Config:
        # "The request body exactly match the allowed arguments": an
        # attribute no param declares is a client's mistake, not noise.
        extra = pydantic.Extra.forbid
        # Defaults go through their type too (a float's "2" becomes 2.0).
        validate_all = True


# ---- reading the routes ----------------------------------------------------

def route_name(i, r):
    path = r.get("path") if isinstance(r, dict) else None
    return f"endpoint.routes[{i}]" + (f" (POST {path})" if isinstance(path, str) else "")


def read_routes(path):
    try:
        with open(path, encoding="utf-8") as f:
            routes = json.load(f)
    except OSError as e:
        die(f"--routes {path}: {e.strerror}")
    except ValueError as e:
        die(f"--routes {path}: not JSON: {e}")
    if not isinstance(routes, list) or not routes:
        die(f"--routes {path}: must hold a non-empty JSON array of routes (the stored endpoint.routes)")
    seen = {}
    for i, r in enumerate(routes):
        name = route_name(i, r)
        if not isinstance(r, dict):
            die(f"{name}: must be an object")
        for key in ("path", "file", "function"):
            if not isinstance(r.get(key), str) or not r[key]:
                die(f"{name}: {key} must be a non-empty string")
        if str(r.get("verb", "POST")).upper() != "POST":
            die(f"{name}: verb {r.get('verb')!r}: POST is the only verb routes serve")
        if not r["path"].startswith("/"):
            die(f"{name}: path must start with /")
        # Starlette reads {x} as a path parameter; a route's path is literal.
        if "{" in r["path"] or "}" in r["path"]:
            die(f"{name}: path must not contain {{ or }} (the route server serves literal paths)")
        if r["path"] in seen:
            die(f"{name}: repeats the path of endpoint.routes[{seen[r['path']]}]")
        seen[r["path"]] = i
        if not isinstance(r.get("positional", False), bool):
            die(f"{name}: positional must be true or false")
        if not isinstance(r.get("params", []), list):
            die(f"{name}: params must be an array")
    return routes


def param_field(name, i, p):
    """(annotation, default) for create_model: `...` marks a required one."""
    if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].isidentifier():
        die(f"{name}: params[{i}]: name must be a Python identifier")
    where = f"{name}: params[{i}] ({p['name']})"
    t = TYPES.get(str(p.get("type", "")).lower())
    if t is None:
        die(f"{where}: type {p.get('type')!r}: one of {', '.join(TYPES)}")
    if not p.get("optional", False):
        return t, ...
    src = p.get("default")
    if isinstance(src, int) and not isinstance(src, bool):
        src = str(src)
    if not isinstance(src, str):
        die(f"{where}: an optional param needs its default as Python source, e.g. \"None\"")
    # literal_eval, not eval: a default is a value ("None", "5", "[1, 2]"),
    # and the routes file is no place to run code from.
    try:
        value = ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        die(f"{where}: default {src!r} is not a Python literal (e.g. None, 5, 'text', [1, 2])")
    if value is None:
        return Optional[t], None
    try:
        value = pydantic.parse_obj_as(t, value)
    except pydantic.ValidationError:
        die(f"{where}: default {src!r} is not of type {p['type']}")
    return t, value


# ---- loading the model's functions ----------------------------------------

def module_name(code, path, n):
    """FILE's module name: the one its own code would import it by
    (serve.py is `serve`, sub/serve.py `sub.serve`), so that the model's
    `import serve` or its pickled classes find this copy instead of loading
    a second one.  A name that something outside DIR already holds (json.py,
    email/x.py) would shadow it, so that file gets a private name."""
    dotted = os.path.relpath(path, code)[:-3].replace(os.sep, ".")
    parts = dotted.split(".")

    def taken(name):
        m = sys.modules.get(name)
        if m is None:
            return False
        where = list(getattr(m, "__path__", None) or []) + [getattr(m, "__file__", None) or ""]
        return not any(w and os.path.realpath(w).startswith(code + os.sep) for w in where)

    if dotted in sys.modules:
        # The model's code imported it already: that copy is the one.
        same = getattr(sys.modules[dotted], "__file__", None)
        return dotted if same and os.path.realpath(same) == path else f"_rigdeck_route_{n}"
    if not all(part.isidentifier() for part in parts) or taken(parts[0]):
        return f"_rigdeck_route_{n}"
    return dotted


def load_module(code, rel, name, modules):
    """The module of FILE, imported once however many routes name it."""
    path = os.path.realpath(os.path.join(code, rel))
    if os.path.commonpath([path, code]) != code:
        die(f"{name}: file {rel!r} is outside the model code {code}")
    if path in modules:
        return modules[path]
    if not path.endswith(".py") or not os.path.isfile(path):
        die(f"{name}: file {rel!r}: no such Python file in the model code {code}")
    dotted = module_name(code, path, len(modules))
    if dotted in sys.modules:
        modules[path] = sys.modules[dotted]
        return modules[path]
    spec = importlib.util.spec_from_file_location(dotted, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[dotted] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:
        del sys.modules[dotted]
        die(f"{name}: importing {rel} failed: {type(e).__name__}: {e}")
    modules[path] = module
    return module


def check_signature(name, fn, fnname, params, positional):
    """A function that cannot take the declared params would fail every
    request; say so now rather than answer 500s."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a signature: find out on the first call
    names = [p["name"] for p in params]
    try:
        if positional:
            sig.bind(*names)
        else:
            sig.bind(**{n: n for n in names})
    except TypeError as e:
        how = "positionally" if positional else "as keywords"
        die(f"{name}: {fnname}{sig} cannot take the params ({', '.join(names) or 'none'}) {how}: {e}")


# ---- answering --------------------------------------------------------------

def plain(v):
    """numpy and torch values say how to become plain Python: tolist()."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if not isinstance(v, (str, bytes, int, float, bool, type(None))) and callable(getattr(v, "tolist", None)):
        return v.tolist()
    return v


def answer(where, run):
    """200 and run()'s value as JSON; a raise, or a value JSON cannot hold,
    is a 500."""
    try:
        result = run()
    except (Exception, SystemExit) as e:
        return failed(where, e)
    try:
        return JSONResponse(jsonable_encoder(plain(result)))
    except (Exception, SystemExit) as e:
        # Not the function's raise: say so, instead of the encoder's riddle.
        print(f"{PROG}: {where} returned a {type(result).__name__}: {e}", file=sys.stderr, flush=True)
        return JSONResponse({"detail": f"the return value ({type(result).__name__}) cannot be sent as JSON"},
                            status_code=500)


def failed(where, e):
    # The client learns what went wrong, the worker's log where.
    print(f"{PROG}: {where} raised:", file=sys.stderr)
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    sys.stderr.flush()
    return JSONResponse({"detail": f"{type(e).__name__}: {e}"}, status_code=500)


def make_handler(where, fn, body_model, names, positional, body_required):
    """The FastAPI endpoint of one route.  For a plain function it is a plain
    `def`, which FastAPI runs in its thread pool so that a slow model call
    does not stall the event loop; an async function is awaited."""
    def arguments(body):
        if body is None:  # no body at all, and every param is optional
            body = body_model()
        values = body.dict(by_alias=True)
        if positional:
            return [values[n] for n in names], {}
        return [], values

    # With no required param the body may be left out altogether.
    body_default = Body(...) if body_required else Body(None)
    if inspect.iscoroutinefunction(fn):
        async def handler(body: body_model = body_default):
            args, kwargs = arguments(body)
            try:
                result = await fn(*args, **kwargs)
            except (Exception, SystemExit) as e:
                return failed(where, e)
            return answer(where, lambda: result)
    else:
        def handler(body: body_model = body_default):
            args, kwargs = arguments(body)
            return answer(where, lambda: fn(*args, **kwargs))
    return handler


def build_app(routes, code):
    # Only the routes exist: no /docs, /redoc or /openapi.json beside them.
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    modules = {}
    for i, r in enumerate(routes):
        name = route_name(i, r)
        params = r.get("params", [])
        fields, names, required = {}, [], False
        for j, p in enumerate(params):
            t, default = param_field(name, j, p)
            if p["name"] in names:
                die(f"{name}: params[{j}]: name {p['name']!r} is used twice")
            # The model's fields are p0, p1... with the param's name as
            # alias: a param may be called json, dict or _x, which pydantic
            # refuses or ignores as a field's own name.
            fields[f"p{j}"] = (t, pydantic.Field(default, alias=p["name"]))
            names.append(p["name"])
            required = required or default is ...
        module = load_module(code, r["file"], name, modules)
        fn = getattr(module, r["function"], None)
        if fn is None:
            die(f"{name}: function {r['function']!r} not found in {r['file']}")
        if not callable(fn):
            die(f"{name}: {r['function']!r} in {r['file']} is not a function")
        positional = r.get("positional", False)
        check_signature(name, fn, r["function"], params, positional)
        model = pydantic.create_model(f"Route{i}Body", __base__=RouteBody, **fields)
        where = f"POST {r['path']} ({r['file']}:{r['function']})"
        app.add_api_route(r["path"], make_handler(where, fn, model, names, positional, required),
                          methods=["POST"], name=f"route{i}")
    return app


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="Serve an endpoint job's routes (FastAPI, uvicorn).")
    ap.add_argument("--routes", required=True, help="JSON file: the stored endpoint.routes array")
    ap.add_argument("--code", required=True, help="the model's code directory; route files are relative to it")
    ap.add_argument("--host", required=True, help="address to listen on")
    ap.add_argument("--port", required=True, type=int, help="port to listen on")
    a = ap.parse_args()
    # The worker's log is a file: line by line, so that the model's own
    # prints and the access lines arrive when they happen, in order.
    sys.stdout.reconfigure(line_buffering=True)
    if not 1 <= a.port <= 65535:
        die(f"--port {a.port}: must be 1-65535")
    code = os.path.realpath(a.code)
    if not os.path.isdir(code):
        die(f"--code {a.code}: not a directory")
    routes = read_routes(a.routes)
    # The model imports its own modules as `python3 serve.py` would let it,
    # and opens its files (weights, vocabularies) relative to its code.
    sys.path.insert(0, code)
    os.chdir(code)
    app = build_app(routes, code)
    uvicorn.run(app, host=a.host, port=a.port, log_level="info", access_log=True)


if __name__ == "__main__":
    main()
