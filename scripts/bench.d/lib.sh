# Shared by the HTTP benchmarks (http.sh, review.sh); sourced, needs $WORK and $DURATION.

run_wrk() {  # name, wrk args...: one wrk run, one summary line; its req/s in $WORK/last.rps
  local name=$1; shift
  wrk --latency -d"${DURATION}s" "$@" > "$WORK/wrk.out" 2>&1
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.out")
  p50=$(awk '$1=="50%" {print $2}' "$WORK/wrk.out")
  p99=$(awk '$1=="99%" {print $2}' "$WORK/wrk.out")
  local errs
  errs=$(awk '/Non-2xx/ {print $5}' "$WORK/wrk.out")
  printf '%-44s %10s req/s  p50 %-9s p99 %-9s non-2xx %s\n' "$name" "$rps" "$p50" "$p99" "${errs:-0}"
  echo "$rps" > "$WORK/last.rps"
}

start_nginx() {  # port: nginx, one worker, keep-alive, serving $WORK/www (the ceiling of one core)
  chmod 755 "$WORK" "$WORK/www"
  chmod 644 "$WORK"/www/*
  cat > "$WORK/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx.err;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$1;
    location / { root $WORK/www; default_type application/json; }
  }
}
NGINX
  nginx -c "$WORK/nginx.conf"
}

stop_nginx() {
  kill "$(cat "$WORK/nginx.pid")"
}
