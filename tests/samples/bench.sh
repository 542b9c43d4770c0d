# docs/bench.md: a live run with load, gated.
source "$(dirname "$0")/lib.sh"
show bench --objects 100 --rate 100 --for 5s --warmup 1s --handlers 2 --handler-time exp:2ms \
  --workers 2 --work-time uniform:1ms..5ms --fail-if 'queueDuration.p99 > 50ms' \
  --fail-if 'backlog.max >= 1000' || true
