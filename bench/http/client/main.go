// Go peer of the HTTP client benchmark (bench/http/tls.sh): net/http's
// client GETs URL N times, one after the other (one keep-alive connection),
// and prints `done N` when every answer was 200 with the expected body.
//
//	main URL N [CA_FILE]
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: main URL N [CA_FILE]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "N must be a number")
		os.Exit(2)
	}
	tr := &http.Transport{ForceAttemptHTTP2: false, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	if len(os.Args) > 3 {
		pem, err := os.ReadFile(os.Args[3])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	c := &http.Client{Transport: tr}
	for i := 0; i < n; i++ {
		r, err := c.Get(os.Args[1])
		if err != nil {
			fmt.Printf("failed at %d: %v\n", i, err)
			os.Exit(1)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 || string(b) != "hello world" {
			fmt.Printf("failed at %d: %d\n", i, r.StatusCode)
			os.Exit(1)
		}
	}
	fmt.Printf("done %d\n", n)
}
