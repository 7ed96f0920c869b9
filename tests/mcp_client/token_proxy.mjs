// A reverse proxy that adds `Authorization: Bearer <token>` to every request
// and passes everything else on as it came, Host and Origin included: the
// official conformance suite has no option for a token, and its DNS-rebinding
// scenario must reach the server with the headers it forged.
//
//   node token_proxy.mjs 127.0.0.1:8765 <token>
//
// Prints `listening <port>` once it listens on 127.0.0.1.
import http from "node:http";

const [upstream, token] = process.argv.slice(2);
if (!upstream || !token) {
  console.error("usage: node token_proxy.mjs HOST:PORT TOKEN");
  process.exit(2);
}
const at = upstream.lastIndexOf(":");
const host = upstream.slice(0, at);
const port = Number(upstream.slice(at + 1));

const server = http.createServer((request, response) => {
  const headers = { ...request.headers, authorization: `Bearer ${token}` };
  const onward = http.request(
    { host, port, method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  onward.on("error", (error) => {
    if (!response.headersSent) {
      response.writeHead(502);
    }
    response.end(String(error));
  });
  // A client that goes closes the server's stream too.
  response.on("close", () => onward.destroy());
  request.pipe(onward);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
