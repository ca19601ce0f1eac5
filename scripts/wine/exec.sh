#!/usr/bin/env bash
# go test -exec: runs one Windows test binary under Wine, in the package's
# directory, with the prefix test-windows.sh made (WINEPREFIX).
set -euo pipefail
exec /usr/lib/wine/wine64 "$@"
