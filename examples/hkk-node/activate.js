// The `activate` action: a card's activated abilities (136): regeneration,
// shadow and the card's own abilities with `effects` (hkk-vocabulary.md,
// "Keyword abilities", "Ability fields", "Timings of an activated ability").
// Combat abilities (direct damage) need the combat phase, which this engine
// does not model: they are refused.
'use strict';

const R = require('./rules');
const { runEffects } = require('./play');

const { TABLE_ZONES, Refusal, inputError, emit, locate } = R;

// How many times an ability was used this turn: card id -> ability -> count.
function usesOf(st, id, name) {
  st.uses = st.uses || {};
  st.uses[id] = st.uses[id] || {};
  return st.uses[id][name] || 0;
}

function countUse(st, id, name, n) {
  usesOf(st, id, name);
  st.uses[id][name] = (st.uses[id][name] || 0) + (n || 1);
}

// The ability named by index or keyword: the card's own, or one granted by
// a card sitting on it (128.1), with where it comes from.
function findAbility(st, id, ability) {
  const own = st.cards[id].def.abilities || [];
  if (Number.isInteger(ability)) return own[ability] ? { ab: own[ability], granted: false } : null;
  const mine = own.find((a) => a.keyword === ability);
  if (mine) return { ab: mine, granted: false };
  for (const other of R.tableCards(st)) {
    const oc = st.cards[other];
    if (oc.def.attached_to !== id) continue;
    for (const g of oc.def.abilities || []) {
      if (g.keyword !== 'grant') continue;
      const found = (g.abilities || []).find((a) => a.keyword === ability);
      if (found) return { ab: found, granted: true };
    }
  }
  return null;
}

// Keywords that are activated (hkk-vocabulary.md): any other keyword of the
// vocabulary is not an activated ability (136.0).
const ACTIVATED_KEYWORDS = new Set(['regeneration', 'shadow', 'direct_damage']);

// The phase: nothing in the preparation phase but `timing: preparation`
// abilities, nothing in the draw phase; `timing: main` only in the
// controller's own main phases (vocabulary, "Refusal clauses").
function checkTiming(st, p, timing) {
  const { active, phase } = st.turn;
  if (phase === 'preparation' && timing !== 'preparation') {
    throw new Refusal('rb7:elokeszito-fazis', 'no ability is used in the preparation phase');
  }
  if (phase === 'draw') throw new Refusal('rb7:kijatszasi-sorrend', 'no ability is used in the draw phase');
  if (timing === 'main' && !(p === active && (phase === 'main1' || phase === 'main2'))) {
    throw new Refusal('137.1', 'the ability is used in its controller\'s main phases');
  }
  if (timing === 'preparation' && !(p === active && phase === 'preparation')) {
    // not in the refusal table: the ability's own timing, read as 137.1 reads `main`
    throw new Refusal('137.1', 'the ability is used in its controller\'s preparation phase');
  }
}

function activate(ctx, VERBS) {
  const st = ctx.state;
  const a = ctx.args;
  const p = a.player !== undefined ? a.player : ctx.by;
  if (!R.isPlayer(p)) throw inputError('activate: unknown player ' + JSON.stringify(p));
  const id = a.card;
  if (typeof id !== 'string' || !st.cards[id]) throw inputError('activate: card not defined: ' + JSON.stringify(id));
  const targets = Array.isArray(a.targets) ? a.targets : [];
  for (const t of targets) {
    if (!R.isPlayer(t) && !st.cards[t]) throw inputError('activate: target not defined: ' + JSON.stringify(t));
  }
  const card = st.cards[id];
  const ability = a.ability === undefined ? 0 : a.ability;
  const found = findAbility(st, id, ability);
  const ab = found ? found.ab : null;
  const name = ab ? ab.keyword : String(ability);
  if (!ab) {
    if (ability === 'regeneration') throw new Refusal('136.6', 'the card has no regeneration');
    if (ability === 'direct_damage') throw new Refusal('129.2', 'the card has no direct damage');
    throw new Refusal('136.0', 'the card has no such ability');
  }
  if (!ACTIVATED_KEYWORDS.has(name) && !Array.isArray(ab.effects)) {
    throw new Refusal('136.0', `${name} is not an activated ability`);
  }
  const loc = locate(st, id);
  const onTable = !!loc && TABLE_ZONES.has(loc.zone);
  const mine = onTable && loc.player === p;
  if (name === 'direct_damage') {
    // 129: a combat ability, used in the combat phase after an attack is
    // declared, at what the card fights. This engine does not implement
    // `attack`, so no attack is ever declared in a case it runs: refused.
    if (!mine) throw new Refusal('rb7:harci-kepessegek', 'direct damage by a card not the player\'s');
    if (a.x !== undefined && a.x < 0) throw new Refusal('112.0', 'direct damage with X below 0');
    if (a.x !== undefined && a.x > (ab.x || 0)) throw new Refusal('129.5', 'direct damage above the ability\'s X');
    throw new Refusal('rb7:harci-kepessegek', 'direct damage is used only in combat, after an attack is declared');
  }
  if (name === 'regeneration' && onTable && !mine) throw new Refusal('136.6', 'only the controller regenerates');
  if (name === 'shadow' && (!mine || card.kind !== 'creature')) {
    throw new Refusal('136.9', 'shadow: not the player\'s creature on the table', ['rb7:aktivalast-kivano-kepessegek']);
  }
  if (!onTable) {
    throw new Refusal('rb7:aktivalast-kivano-kepessegek', 'the card is not on the table', ['4.9.3']);
  }
  if (!mine && !ab.common) {
    throw new Refusal('rb7:aktivalast-kivano-kepessegek', 'only its controller uses the ability', ['137.4']);
  }
  if (card.kind !== 'creature' && !card.active) throw new Refusal('rb7:passzivizalas', 'a passive card is not used');
  // 119.1: a frozen card's own abilities do not work; 127.1.3 / 127.2.2.
  if (!R.abilitiesOf(st, id).includes(ab)) {
    if (ab.delay && ((card.counters.delay || 0) > 0 || card.enteredOtherwise)) {
      throw new Refusal('127.1.3', 'the delayed ability does not work');
    }
    if (ab.temporary && !(card.counters.temporary > 0)) throw new Refusal('127.2.2', 'no temporary counter is left');
    // a frozen card: its own abilities (119.1), a grant older than the freeze (119.2)
    throw new Refusal(found.granted ? '119.2' : '119.1', 'the ability does not work now');
  }
  const pl = st.players[p];

  if (name === 'regeneration') {
    // 136.6-136.8: n Ép healed for X VP per Ép, right after damage, at most 4 a turn.
    const n = a.x === undefined ? 1 : a.x;
    const price = (ab.x || 0) * n;
    if (n < 1) throw new Refusal('136.6', 'regeneration of less than 1 Ép');
    if (!card.wounds) throw new Refusal('136.8', 'the creature has no wounds');
    if (n > card.wounds) throw new Refusal('rb7:regeneralodas', 'more Ép than the creature\'s wounds');
    if (usesOf(st, id, name) + n > 4) throw new Refusal('136.7', 'at most 4 Ép are regenerated a turn');
    for (const t of targets) {
      if (!R.isPlayer(t) && R.hasKeyword(st, t, 'untargetable')) throw new Refusal('132.11', `${t} is untargetable`);
    }
    if (pl.vp < price) throw new Refusal('4.20.3', 'not enough VP');
    if (price > 0) {
      pl.vp -= price;
      emit(ctx, { event: 'vp_spent', player: p, amount: price });
    }
    countUse(st, id, name, n);
    emit(ctx, { event: 'ability_activated', card: id, ability: name, player: p });
    runEffects(ctx, VERBS, id, p, targets, [{ heal: { target: id, amount: n } }]);
    return;
  }

  const cost = ab.cost || {};
  if (name !== 'shadow') {
    checkTiming(st, p, ab.timing);
    const perTurn = ab.per_turn === undefined ? 1 : ab.per_turn;
    if (usesOf(st, id, name) >= perTurn) throw new Refusal('137.1', 'the ability was used as often as it may this turn');
    if (ab.needs_target && targets.length === 0) throw new Refusal('rb7:celpont', 'the ability needs a target');
  }
  for (const t of targets) {
    if (!R.isPlayer(t) && R.hasKeyword(st, t, 'untargetable')) throw new Refusal('132.11', `${t} is untargetable`);
  }
  if (cost.passivate) {
    if (loc.zone === 'guard_post') throw new Refusal('5.4.5', 'a guard-post creature is never passivated');
    if (card.def.attached_to) throw new Refusal('5.5.4', 'a card sitting on another is not passivated');
    if (!card.active) throw new Refusal('5.5.7.1', 'the card is already passive'); // cannot be passivated
  }
  if (pl.vp < (cost.vp || 0)) throw new Refusal('4.20.3', 'not enough VP');
  if (pl.components < (cost.components || 0)) throw new Refusal('4.20.3', 'not enough szörnykomponens');
  if (pl.deck.length < 4 * (cost.nekron || 0)) {
    throw new Refusal('4.20.3', 'not enough cards for nekron', ['rb7:semmizos-idezesi-koltseg-nekron']);
  }
  if ((cost.sacrifice || 0) > 0 || (cost.builders || 0) > 0) {
    throw new Refusal('4.20.3', 'sacrifice and builders costs of abilities are not implemented');
  }
  if (cost.vp) {
    pl.vp -= cost.vp;
    emit(ctx, { event: 'vp_spent', player: p, amount: cost.vp });
  }
  if (cost.components) {
    pl.components -= cost.components;
    emit(ctx, { event: 'components_spent', player: p, amount: cost.components });
  }
  for (let i = 0; i < 4 * (cost.nekron || 0); i++) R.moveCard(ctx, pl.deck[0], 'void', { cause: 'nekron' });
  if (cost.passivate) {
    card.active = false;
    emit(ctx, { event: 'passivated', card: id });
  }
  countUse(st, id, name);
  emit(ctx, { event: 'ability_activated', card: id, ability: name, player: p });
  if (name === 'shadow') {
    // 136.9: back to its owner's hand, not leaving play for related effects
    R.moveCard(ctx, id, 'hand', { cause: 'shadow', leaveKind: 'shadow' });
    return;
  }
  const deferred = [];
  const sub = Object.assign({}, ctx, { deferred });
  runEffects(sub, VERBS, id, p, targets, ab.effects);
  for (const f of deferred) f();
}

module.exports = { activate };
