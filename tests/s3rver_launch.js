// Starts s3rver (argv: node_modules folder, data folder, bucket, port file) on 127.0.0.1 on a port
// the kernel picks, and writes that port to the port file once it listens (atomically: the fixture
// polls for it). In front of s3rver sits the tests' fault injector: a POST to /__iofab/faults
// ?status=503&code=SlowDown&count=2&after=1 lets `after` S3 requests pass, then makes the next
// `count` answer that error;
// GET /__iofab/stats answers how many S3 requests came, how many carried a SigV4 Authorization, and
// how many a session token that the signature covers.
const fs = require('fs');
const http = require('http');
const path = require('path');
const [modules, dir, bucket, portFile] = process.argv.slice(2);
const S3rver = require(path.join(modules, 's3rver'));

// serviceEndpoint: a Host of <bucket>.s3.localhost names the bucket (virtual-host addressing; curl resolves *.localhost
// to loopback itself).
const s3 = new S3rver({ silent: true, directory: dir, serviceEndpoint: 'localhost', configureBuckets: [{ name: bucket }] });
const handler = s3.callback();
let fault = { status: 0, code: '', count: 0, after: 0 };
const stats = { requests: 0, signed: 0, faults: 0, tokens: 0 };

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/__iofab/faults') {
    fault = { status: Number(url.searchParams.get('status')), code: url.searchParams.get('code') || '',
              count: Number(url.searchParams.get('count')), after: Number(url.searchParams.get('after') || 0) };
    res.end('ok');
    return;
  }
  if (url.pathname === '/__iofab/stats') {
    res.end(JSON.stringify(stats));
    return;
  }
  stats.requests++;
  const auth = req.headers.authorization || '';
  if (auth.startsWith('AWS4-HMAC-SHA256 Credential=')) stats.signed++;
  if (req.headers['x-amz-security-token'] && /SignedHeaders=[^,]*x-amz-security-token/.test(auth)) stats.tokens++;
  if (fault.count > 0 && fault.after > 0) {
    fault.after--;
  } else if (fault.count > 0) {
    fault.count--;
    stats.faults++;
    req.resume();  // read the body, so the client sees the answer and not a reset
    req.on('end', () => {
      res.writeHead(fault.status, { 'Content-Type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${fault.code}</Code>` +
              `<Message>injected by the test</Message></Error>`);
    });
    return;
  }
  handler(req, res);
});

s3.configureBuckets()
  .then(() => new Promise(ok => server.listen(0, '127.0.0.1', ok)))
  .then(() => {
    fs.writeFileSync(portFile + '.tmp', String(server.address().port));
    fs.renameSync(portFile + '.tmp', portFile);
  })
  .catch(e => { console.error('s3rver: ' + e.message); process.exit(1); });
