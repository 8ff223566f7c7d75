set -e
test -f main.py || qs_fail "main.py was never written"
if [ -x .venv/bin/fastapi ]; then
  qs_serve .venv/bin/fastapi run main.py --host 127.0.0.1 --port "$QS_PORT"
elif [ -x .venv/Scripts/fastapi ]; then
  qs_serve .venv/Scripts/fastapi run main.py --host 127.0.0.1 --port "$QS_PORT"
elif command -v fastapi >/dev/null; then
  qs_serve fastapi run main.py --host 127.0.0.1 --port "$QS_PORT"
else
  py=""
  for c in .venv/bin/python python3 python; do
    if command -v "$c" >/dev/null && "$c" -c 'import uvicorn' 2>/dev/null; then py=$c; break; fi
  done
  [ -n "$py" ] || qs_fail "neither fastapi nor uvicorn is installed"
  qs_serve "$py" -m uvicorn main:app --host 127.0.0.1 --port "$QS_PORT"
fi
qs_wait_http / --json message="Hello World"
