// Parses each Mermaid file given with Mermaid's own parser (the `mermaid` package's
// `mermaid.parse`, the one its renderer uses), headless under Node: jsdom stands in for the
// browser's DOM, which Mermaid's sanitiser needs; nothing is rendered and no browser is used.
// Each file must hold one diagram, and it must be a sequenceDiagram. Exit 1 on any failure.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
for (const key of ['DOMParser', 'Element', 'HTMLElement', 'Node', 'navigator']) {
  if (!(key in globalThis)) {
    Object.defineProperty(globalThis, key, { value: dom.window[key], configurable: true });
  }
}
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node parse.mjs FILE.mmd...');
  process.exit(2);
}
let failed = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  try {
    const result = await mermaid.parse(text);
    if (!result || result.diagramType !== 'sequence') {
      throw new Error(`parsed as ${result && result.diagramType}, not a sequence diagram`);
    }
    console.log(`ok ${file}`);
  } catch (e) {
    failed += 1;
    console.error(`FAIL ${file}: ${e && e.message ? e.message : e}`);
  }
}
if (failed > 0) {
  console.error(`${failed} of ${files.length} diagrams rejected by Mermaid's parser`);
  process.exit(1);
}
