# docs/other-commands.md, version.
source "$(dirname "$0")/lib.sh"
show version
