# Crystal peer of the HTTP benchmark (bench/http/run.sh): HTTP::Server
# serving the same two routes as ../wo/main.wo on 127.0.0.1:PORT,
# keep-alive (its default). Built with `crystal build --release` without
# -Dpreview_mt: Crystal's default, every fiber on one thread.
#
#   main PORT
require "http/server"
require "json"

if ARGV.size != 1
  STDERR.puts "usage: main PORT"
  exit 2
end
port = ARGV[0].to_i

server = HTTP::Server.new do |ctx|
  case ctx.request.path
  when "/hello"
    ctx.response.content_type = "text/plain; charset=utf-8"
    ctx.response.print "hello world"
  when "/json"
    # encoded per request, as the woc and Go peers do
    ctx.response.content_type = "application/json"
    ctx.response.print({message: "hello world"}.to_json)
  else
    ctx.response.status = HTTP::Status::NOT_FOUND
    ctx.response.print "not found"
  end
end
if cert = ENV["BENCH_TLS_CERT"]? # bench/http/tls.sh
  ctx = OpenSSL::SSL::Context::Server.new
  ctx.certificate_chain = cert
  ctx.private_key = ENV["BENCH_TLS_KEY"]
  server.bind_tls("127.0.0.1", port, ctx)
else
  server.bind_tcp("127.0.0.1", port)
end
puts "listening on 127.0.0.1:#{port}"
STDOUT.flush
server.listen
