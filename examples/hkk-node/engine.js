#!/usr/bin/env node
// A small HKK (Hatalom Kártyái) engine that speaks the kit's protocol 1.
//
// Written from the contract documents only: docs/spec/*.md,
// docs/spec/hkk-protocol-additions.md and conformance/schema/hkk-case-1.schema.json.
// No dependencies: plain Node.js (CommonJS), one request per line on stdin,
// one reply per line on stdout, logging on stderr.
//
// Scope: every effect verb (zones, moves, the Void, premade cards, standalone
// tokens, resources, counters, damage and healing, control changes, creating
// cards), and the actions `play`, `activate` and `choose`. The turn
// (`start_game`, `advance`, `pass`), combat (`attack`, `strike_back`), the
// exchange, `sacrifice_for_components` and `resolve_conflict` are left out of
// `hello`, so the harness skips the cases that use them.
//
// Files: engine.js (the protocol), verbs.js (the verbs and the run of a case),
// rules.js (state, zones, moves, leaving the table, computed values),
// play.js (`play`), activate.js (`activate`).
'use strict';

const readline = require('readline');
const { runCase } = require('./verbs');

const IMPLEMENTATION = {
  name: 'hkk-node-example',
  version: '0.2.0',
  language: 'javascript',
  homepage: 'examples/hkk-node/README.md',
};

// Only the verbs this engine really carries out (see verbs.js).
const VERBS = [
  'activate', 'activate_card', 'change_max_hp', 'change_max_vp', 'choose', 'create',
  'damage', 'discard', 'draw', 'exile', 'gain_components', 'gain_vp', 'heal',
  'mill', 'move', 'passivate', 'play', 'put_counter', 'remove_counter', 'sacrifice',
  'sacrifice_hp', 'sacrifice_max_hp', 'search', 'shuffle', 'steal',
];
const RULESETS = ['kodex', 'kodex-4.15.1'];
const FORMATS = ['hkk-case/1'];
// The observations this engine returns (docs/spec/hkk-profiles.md): all of
// them — the state, computed values, refusals with their clauses, events and
// pending decisions. Declaring the full list is the same as declaring none;
// it is stated so that the run prints the pass rate per observation.
const PROFILE = ['state', 'computed', 'refusal', 'refusal_clause', 'events', 'pending'];
// The features this engine implements (docs/spec/hkk-profiles.md, "Features"): none of
// docs/spec/hkk-effects.md's (continuous, timed and replacement effects, split damage, repeat,
// delayed resources, the combat sub-phases, the life-saving window, decisions and the priority
// order) yet. The harness skips the cases that need one, naming the feature, so the run says
// what is left to build instead of listing those cases as expected failures.
const FEATURES = [];

function log(...args) {
  process.stderr.write('[hkk-node] ' + args.join(' ') + '\n');
}

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function handle(line) {
  if (!line.trim()) return;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    reply({ ok: false, error: 'request is not JSON: ' + e.message });
    return;
  }
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    reply({ ok: false, error: 'request is not a JSON object' });
    return;
  }
  switch (req.cmd) {
    case 'hello': {
      if (req.protocol !== 1) {
        reply({ ok: false, error: 'only protocol 1 is spoken, got ' + JSON.stringify(req.protocol) });
        return;
      }
      if (req.format !== undefined && !FORMATS.includes(req.format)) {
        reply({ ok: false, error: 'case format not spoken: ' + JSON.stringify(req.format) });
        return;
      }
      reply({ ok: true, implementation: IMPLEMENTATION, formats: FORMATS, profile: PROFILE, features: FEATURES, rulesets: RULESETS, verbs: VERBS });
      return;
    }
    case 'run': {
      if (!Number.isInteger(req.seq)) {
        reply({ ok: false, error: 'run without an integer seq' });
        return;
      }
      const c = req.case;
      if (c === null || typeof c !== 'object' || Array.isArray(c)) {
        reply({ seq: req.seq, errored: { message: 'run without a case object' } });
        return;
      }
      const ruleset = c.ruleset || 'kodex';
      if (!RULESETS.includes(ruleset)) {
        reply({ seq: req.seq, skipped: 'ruleset not implemented', unsupported: ['ruleset:' + ruleset] });
        return;
      }
      const missing = [...new Set((c.when || []).map((s) => Object.keys(s || {})[0]))]
        .filter((v) => !VERBS.includes(v));
      if (missing.length) {
        reply({ seq: req.seq, skipped: 'verbs not implemented', unsupported: missing });
        return;
      }
      try {
        reply(Object.assign({ seq: req.seq }, runCase(c, ruleset)));
      } catch (e) {
        log('case', c.id, 'errored:', e && e.stack ? e.stack : String(e));
        reply({ seq: req.seq, errored: { message: String(e && e.message ? e.message : e), traceback: String(e && e.stack || '') } });
      }
      return;
    }
    case 'bye':
      process.exit(0);
      return;
    default:
      reply({ ok: false, error: 'unknown cmd: ' + JSON.stringify(req.cmd) });
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  try {
    handle(line);
  } catch (e) {
    log('internal error:', e && e.stack ? e.stack : String(e));
    reply({ ok: false, error: 'internal error: ' + String(e && e.message ? e.message : e) });
  }
});
rl.on('close', () => process.exit(0));
