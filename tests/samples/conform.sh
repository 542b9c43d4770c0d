# docs/conform.md: every check on ConfigMaps, in a scratch namespace conform creates.
source "$(dirname "$0")/lib.sh"
show conform configmaps || true
