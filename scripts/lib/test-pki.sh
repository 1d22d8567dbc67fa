# make_test_pki DIR SAN: a throwaway CA and a server certificate signed by it,
# for the TLS tests and benchmarks (tests/client/run.sh,
# scripts/web-app-tls-accept.sh, bench/http/tls.sh). Writes DIR/ca.pem (the
# CA to trust), DIR/cert.pem and DIR/key.pem (the server's, P-256, valid two
# days, subjectAltName SAN, e.g. `IP:127.0.0.1`); openssl's chatter goes to
# DIR/openssl.log. Returns non-zero when openssl fails.
make_test_pki() {
  local dir=$1 san=$2
  mkdir -p "$dir"
  (
    cd "$dir" &&
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 \
        -subj '/CN=woc test CA' &&
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem -out server.csr -subj /CN=woc-test &&
      printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$san" >ext.cnf &&
      openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem -days 2 -extfile ext.cnf
  ) >"$dir/openssl.log" 2>&1
}
