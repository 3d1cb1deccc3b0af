#!/usr/bin/env node
// Independent EMVCo check for QrPhIndependentDecoderIT: feeds QR payloads to promptparse (a
// third-party EMVCo parser, installed by the test into target/node) and reports what it made of
// each one, so the Java test can compare promptparse's reading with our decoder's.
//
// Usage: node promptparse-check.cjs <node_modules dir>  < payloads.json  > results.json
//   stdin:  a JSON array of payload strings
//   stdout: {"version": "...", "checksum123456789": "...", "results": [ ... ]}, one result per
//           payload, in order:
//     strictAccepted   promptparse.parse(payload, strict = true) returned a QR, which it does only
//                      when tag 63 matches its own CRC computation
//     crcValid         EMVCoQR.validate("63") on the lenient parse
//     checksum         promptparse's CRC of everything before the last four characters
//     wellFormed       every tag's declared length equals its value's length (promptparse itself
//                      does not notice truncation) and promptparse re-encodes the tags to the
//                      original string
//     tags             [{id, value, subTags: [{id, value}]}] as promptparse read them
'use strict';

const path = require('node:path');
const fs = require('node:fs');

const modules = process.argv[2];
if (!modules) {
  console.error('usage: node promptparse-check.cjs <node_modules dir>');
  process.exit(2);
}
const promptparse = require(path.join(modules, 'promptparse'));
const { version } = require(path.join(modules, 'promptparse', 'package.json'));

const payloads = JSON.parse(fs.readFileSync(0, 'utf8'));

function simplify(tag) {
  const out = { id: tag.id, value: tag.value };
  if (tag.subTags) {
    out.subTags = tag.subTags.map((s) => ({ id: s.id, value: s.value }));
  }
  return out;
}

const results = payloads.map((payload) => {
  const strict = promptparse.parse(payload, true, true);
  const lenient = promptparse.parse(payload, false, true);
  const tags = lenient ? lenient.getTags() : [];
  const flat = promptparse.decode(payload);
  const wellFormed =
    flat.length > 0 &&
    flat.every((t) => t.length === t.value.length) &&
    promptparse.encode(flat) === payload;
  return {
    strictAccepted: strict !== null,
    crcValid: lenient !== null && lenient.validate('63'),
    checksum: promptparse.checksum(payload.slice(0, -4), true),
    wellFormed,
    tags: tags.map(simplify),
  };
});

process.stdout.write(
  JSON.stringify({
    version,
    checksum123456789: promptparse.checksum('123456789', true),
    results,
  }),
);
