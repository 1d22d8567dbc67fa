// Go peer of the HTTP benchmark (bench/http/run.sh): net/http serving the
// same two routes as ../wo/main.wo on 127.0.0.1:PORT, keep-alive (Go's
// default). GOMAXPROCS (set by run.sh) bounds the threads running Go code.
//
//	main PORT
package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

type message struct {
	Message string `json:"message"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: main PORT")
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("hello world"))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		// encoded per request, as the woc and Crystal peers do
		b, _ := json.Marshal(message{Message: "hello world"})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	addr := "127.0.0.1:" + os.Args[1]
	fmt.Println("listening on " + addr)
	var err error
	if cert := os.Getenv("BENCH_TLS_CERT"); cert != "" { // bench/http/tls.sh
		// HTTP/1.1 only, as the woc and Crystal peers serve it.
		srv := &http.Server{Addr: addr, Handler: mux, TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
		err = srv.ListenAndServeTLS(cert, os.Getenv("BENCH_TLS_KEY"))
	} else {
		err = http.ListenAndServe(addr, mux)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
