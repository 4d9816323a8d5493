#!/usr/bin/env bash
# npm start: install what is missing, build everything, serve the app on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh app
bash scripts/build.sh
echo "pgpage: serving dist/ at http://127.0.0.1:${PORT:-4173}/ (Ctrl+C to stop)"
exec npx vite preview --host 127.0.0.1 --port "${PORT:-4173}" --strictPort
