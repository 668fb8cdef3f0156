// The verbs this example engine carries out, and the run of a case.
// Effects are never refused by a rule: they do what they can and report the
// stopped part with `effect_prevented` (Kódex 4.24.2, hkk-rules.md "Actions
// and effects"). Player actions (`play`, `activate`, `choose`, any step with
// `as_cost: true`) are refused when a rule forbids them: the reply names the
// step and the clause, and the state is the state before that step.
'use strict';

const R = require('./rules');

const { TABLE_ZONES, Refusal, inputError, emit, prevent, locate } = R;

// ------------------------------------------------------------ arguments

function needCard(ctx, id, what) {
  if (typeof id !== 'string' || !Object.prototype.hasOwnProperty.call(ctx.state.cards, id)) {
    throw inputError(`${ctx.verb}: ${what || 'card'} ${JSON.stringify(id)} is not defined by the case`);
  }
  return id;
}

function needPlayer(ctx, p) {
  if (!R.isPlayer(p)) throw inputError(`${ctx.verb}: unknown player ${JSON.stringify(p)}`);
  return p;
}

function thePlayer(ctx) {
  return needPlayer(ctx, ctx.args.player !== undefined ? ctx.args.player : ctx.by);
}

// A negative amount or count is an input error of the case (hkk-vocabulary.md).
function nonNegative(ctx, name, dflt) {
  const v = ctx.args[name] === undefined ? dflt : ctx.args[name];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw inputError(`${ctx.verb}: ${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

function count(ctx, dflt) {
  return nonNegative(ctx, 'count', dflt);
}

// Where a target card is, for effects that need it on the table.
function tableTarget(ctx, id, clause, field) {
  const st = ctx.state;
  if (st.removed.includes(id)) return prevent(ctx, '107.0', { [field || 'card']: id });
  const loc = locate(st, id);
  if (!loc || !TABLE_ZONES.has(loc.zone)) return prevent(ctx, clause, { [field || 'card']: id });
  return loc;
}

// 132.4-132.8: immunities against the step's source card.
function sourceImmunity(ctx, id) {
  if (!ctx.source) return null;
  const src = ctx.state.cards[ctx.source];
  if (R.immuneTo(ctx.state, id, 'source')) return '132.5';
  if (['instant', 'sorcery', 'enchantment'].includes(src.kind) && R.immuneTo(ctx.state, id, 'magic')) return '132.4';
  if (['instant', 'sorcery'].includes(src.kind) && R.immuneTo(ctx.state, id, 'instant_sorcery')) return '132.7';
  if ((src.def.subtypes || []).includes('mentalis') && R.immuneTo(ctx.state, id, 'mental')) return '132.8';
  return null;
}

// ---------------------------------------------------------------- verbs

const VERBS = {};

VERBS.damage = (ctx) => {
  const st = ctx.state;
  const { target, element } = ctx.args;
  const amount = nonNegative(ctx, 'amount');
  if (R.isPlayer(target)) {
    st.players[target].hp -= amount;
    emit(ctx, { event: 'damaged', target, amount, element, source: ctx.source });
    return;
  }
  needCard(ctx, target, 'target');
  const card = st.cards[target];
  if (card.kind !== 'creature' && card.kind !== 'building') return prevent(ctx, '4.25.0', { target });
  const loc = tableTarget(ctx, target, '4.5.2', 'target');
  if (loc === 'prevented') return;
  let clause = sourceImmunity(ctx, target);
  if (clause) {
    // immunities to the source (132.4-132.8): the card is not affected
    return prevent(ctx, clause, { card: target, target });
  }
  if (R.hasKeyword(st, target, 'undamageable')) clause = '132.12';
  else if (element && R.immuneTo(st, target, element)) clause = '132.9';
  if (clause) {
    emit(ctx, { event: 'damage_prevented', target, amount, element, clause });
    return;
  }
  card.wounds += amount;
  card.damagedBy = R.removerPlayer(ctx);
  emit(ctx, { event: 'damaged', target, amount, element, source: ctx.source });
  if (card.kind === 'creature' && R.currentHp(st, target) <= 0 && !card.dying) {
    card.dying = true; // a life-saving step may still save it
    emit(ctx, { event: 'dying', card: target });
  } else if (card.kind === 'building' && R.currentHp(st, target) <= 0) {
    R.destroy(ctx, target, 'damage', card.damagedBy);
  }
};

VERBS.heal = (ctx) => {
  const st = ctx.state;
  const { target } = ctx.args;
  const amount = nonNegative(ctx, 'amount');
  if (R.isPlayer(target)) {
    R.healPlayer(ctx, target, amount);
    return;
  }
  needCard(ctx, target, 'target');
  const card = st.cards[target];
  if (card.kind !== 'creature' && card.kind !== 'building') return prevent(ctx, '4.26', { target });
  const loc = tableTarget(ctx, target, '4.5.2', 'target');
  if (loc === 'prevented') return;
  const clause = sourceImmunity(ctx, target);
  if (clause) return prevent(ctx, clause, { card: target, target });
  const gain = Math.max(0, Math.min(amount, card.wounds));
  card.wounds -= gain;
  if (gain > 0) emit(ctx, { event: 'healed', target, amount: gain });
  if (card.dying && R.currentHp(st, target) > 0) {
    card.dying = false;
    emit(ctx, { event: 'saved', card: target });
  }
};

VERBS.draw = (ctx) => {
  const p = thePlayer(ctx);
  const n = count(ctx, 1);
  // 4.12.0: an empty deck draws nothing; a shortfall is not a stop.
  for (let i = 0; i < n && ctx.state.players[p].deck.length; i++) R.drawOne(ctx, p);
};

function discardOne(ctx, p, id, to) {
  const r = R.moveCard(ctx, id, to, { cause: 'discard' });
  if (r === 'moved' || r === 'removed') emit(ctx, { event: 'discarded', player: p, card: id, to });
}

VERBS.discard = (ctx) => {
  const st = ctx.state;
  const p = thePlayer(ctx);
  const to = ctx.args.to || 'graveyard';
  const asCost = !!ctx.args.as_cost;
  const hand = st.players[p].hand;
  if (Array.isArray(ctx.args.cards)) {
    const named = ctx.args.cards.map((c) => needCard(ctx, c));
    const n = count(ctx, named.length);
    if (named.length > n || new Set(named).size !== named.length) {
      throw inputError('discard: cards names more cards than count, or a card twice');
    }
    const missing = named.filter((c) => !hand.includes(c));
    if (asCost) {
      if (missing.length) throw new Refusal('4.17.0', `discard: ${missing[0]} is not in ${p}'s hand`);
      if (hand.length < n) throw new Refusal('4.17.5', 'discard as a cost: the hand holds fewer cards');
      if (named.length < n) throw new Refusal('4.17.3', 'discard: fewer cards named than count');
    }
    // card by card: a named card not in the hand is reported (4.17.0)
    for (const id of named) {
      if (missing.includes(id)) prevent(ctx, '4.17.0', { card: id, player: p });
      else discardOne(ctx, p, id, to);
    }
    // fewer named than count: the rest is the hand's player's choice (4.17.2)
    const rest = n - named.length;
    if (rest > 0) {
      discardTasks(ctx, [{ player: p, count: rest, to, options: st.players[p].hand.slice(), clause: '4.17.2' }]);
    }
    return;
  }
  const n = count(ctx, 1);
  if (asCost && hand.length < n) throw new Refusal('4.17.5', 'discard as a cost: the hand holds fewer cards');
  // 4.17.2: the player chooses which cards; the game waits for `choose`.
  discardTasks(ctx, [{ player: p, count: n, to, options: hand.slice(), clause: '4.17.2' }]);
};

// Discards that may need a decision, carried out in order. A task whose
// player holds more candidates than it must discard stops the run with a
// pending decision (hkk-rules.md, "Pending decisions"); `choose` carries it
// out and goes on with the rest. Fields starting with "_" stay inside the
// engine. A task: {player, count, to, options, clause, choice, reveal}.
function discardTasks(ctx, tasks) {
  const st = ctx.state;
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i];
    const hand = st.players[t.player].hand;
    const candidates = t.options.filter((c) => hand.includes(c));
    if (candidates.length <= t.count) {
      for (const id of candidates) discardOne(ctx, t.player, id, t.to);
      // 134.11: one holding X or fewer spells discards them all and shows the hand
      if (t.reveal) emit(ctx, { event: 'hand_revealed', player: t.player, cards: hand.slice() });
      continue;
    }
    const choice = t.choice || 'discard';
    st.pending = {
      player: t.player, choice, count: t.count, options: candidates,
      step: { discard: { player: t.player, count: t.count, to: t.to } }, by: ctx.by,
      _to: t.to, _next: tasks.slice(i + 1),
    };
    emit(ctx, { event: 'decision_pending', player: t.player, choice, count: t.count, clause: t.clause });
    return;
  }
}

VERBS.choose = (ctx) => {
  const st = ctx.state;
  const pend = st.pending;
  if (!pend) throw new Refusal('4.23.5', 'choose: no decision is pending');
  const p = thePlayer(ctx);
  // 4.17.2: only the player the decision belongs to chooses
  if (p !== pend.player) throw new Refusal('4.17.2', `choose: the decision is ${pend.player}'s`);
  if (pend.choice !== 'discard' && pend.choice !== 'anti_magic' && pend.choice !== 'anti_neutralization') {
    throw new Refusal('4.23.5', 'choose: unknown pending choice ' + pend.choice);
  }
  const cards = (ctx.args.cards || []).map((c) => needCard(ctx, c));
  const hand = st.players[p].hand;
  const options = (Array.isArray(pend.options) ? pend.options : hand).filter((c) => hand.includes(c));
  for (const c of cards) {
    if (!options.includes(c)) throw new Refusal('4.17.0', `choose: ${c} is not one of the options`);
  }
  if (new Set(cards).size !== cards.length || cards.length !== Math.min(pend.count, options.length)) {
    throw new Refusal('4.17.3', `choose: ${pend.count} card(s) must be chosen`);
  }
  // A pending decision given back in `given` carries only its public fields.
  const stepArgs = (pend.step && typeof pend.step === 'object' && pend.step.discard) || {};
  const to = pend._to || stepArgs.to ||
    (pend.choice === 'discard' || pend.player !== pend.by ? 'graveyard' : 'void');
  const next = pend._next || [];
  const rest = Array.isArray(pend.then) ? pend.then : [];
  st.pending = null;
  for (const id of cards) discardOne(ctx, p, id, to);
  discardTasks(ctx, next);
  if (st.pending) {
    if (rest.length) st.pending.then = rest;
    return;
  }
  // the suspended effects of the card go on (hkk-verbs.md, "Playing a card")
  const { runSteps } = require('./play');
  runSteps(ctx, VERBS, rest);
};

VERBS.mill = (ctx) => {
  const st = ctx.state;
  const p = thePlayer(ctx);
  const n = count(ctx, 1);
  const to = ctx.args.to || 'graveyard';
  const deck = st.players[p].deck;
  if (ctx.args.as_cost && deck.length < n) throw new Refusal('4.18.3', 'mill as a cost: the deck holds fewer cards');
  // 4.18.1: a deck shorter than the count mills what it holds (not a stop).
  for (let i = 0; i < n && deck.length; i++) {
    const id = deck[0];
    const r = R.moveCard(ctx, id, to, { cause: 'mill' });
    if (r === 'moved' || r === 'removed') emit(ctx, { event: 'milled', player: p, card: id, to });
  }
};

// The `move` verb's cause (hkk-vocabulary.md, "The move verb").
function moveCause(from, to) {
  if (to === 'hand') return from === 'deck' ? 'search' : 'return';
  if (to.startsWith('deck_')) return 'shuffle';
  if (to === 'graveyard' || to === 'void') {
    if (from === 'deck') return 'mill';
    if (from === 'hand') return 'discard';
    if (from === 'graveyard' && to === 'void') return 'exile';
  }
  return 'effect';
}

VERBS.move = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  const to = ctx.args.to;
  if (!R.DESTINATIONS.has(to)) throw inputError('move: unknown destination ' + JSON.stringify(to));
  const loc = locate(st, id);
  if (loc && TABLE_ZONES.has(loc.zone)) {
    const clause = sourceImmunity(ctx, id);
    if (clause) return prevent(ctx, clause, { card: id });
  }
  const cause = loc ? moveCause(loc.zone, to) : 'effect';
  if (cause === 'exile') {
    // an exile: the Void of the graveyard the card lay in (4.16.1)
    const r = R.moveCard(ctx, id, 'void', { cause, destPlayer: loc.player });
    if (r === 'moved' || r === 'removed') exiled(ctx, id, loc.player, r);
    return;
  }
  // A move is the act its from/to names, with that act's events
  // (hkk-rules.md, "Zones and where a card goes"): a discard, a mill.
  const r = R.moveCard(ctx, id, to, { cause, responsible: R.removerPlayer(ctx) });
  if (r === 'moved' || r === 'removed') {
    if (cause === 'discard') emit(ctx, { event: 'discarded', player: loc.player, card: id, to });
    if (cause === 'mill') emit(ctx, { event: 'milled', player: loc.player, card: id, to });
  }
};

function exiled(ctx, id, player, r) {
  emit(ctx, { event: 'exiled', card: id, player, to: r === 'removed' ? 'removed' : 'void' });
}

VERBS.exile = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  if (st.removed.includes(id)) return prevent(ctx, '107.0', { card: id });
  const loc = locate(st, id);
  if (loc && loc.zone === 'void') return prevent(ctx, '4.8.4', { card: id });
  if (!loc || loc.zone !== 'graveyard') return prevent(ctx, '4.16.0', { card: id });
  const r = R.moveCard(ctx, id, 'void', { cause: 'exile', destPlayer: loc.player });
  if (r === 'moved' || r === 'removed') exiled(ctx, id, loc.player, r);
};

// Whether a counter may go on a card; the clause that keeps it off.
function counterBlock(st, id, counter) {
  const card = st.cards[id];
  const abs = R.abilitiesOf(st, id);
  if (counter === 'delay' || counter === 'temporary') {
    const own = (card.def.abilities || []).some((a) => a[counter]);
    if (abs.some((a) => a.keyword === 'no_counters') && !own) return '117.0';
    // 127.0.6: once its delay / temporary counters are down to 0 none can be
    // put on it again; 127.0.4: a card that entered other than by being
    // played never gets them.
    if ((own || (card.exhausted || {})[counter]) && !(card.counters[counter] > 0)) return '127.0.6';
    return null;
  }
  if (abs.some((a) => a.keyword === 'no_counters')) return '117.0';
  if (counter === 'aging' && card.kind !== 'creature') return '123.2';
  if (counter === 'level' && !(card.def.subtypes || []).includes('kalandozo')) return '125.1';
  if (R.CREATURE_ONLY.has(counter) && card.kind !== 'creature') return '117.0';
  if (counter === 'poison' && (R.immuneTo(st, id, 'poison') || abs.some((a) => a.keyword === 'poison_immunity'))) {
    return '132.3';
  }
  return null;
}

VERBS.put_counter = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  const counter = ctx.args.counter;
  const n = count(ctx, 1);
  const loc = tableTarget(ctx, id, '117.0');
  if (loc === 'prevented') return;
  const imm = sourceImmunity(ctx, id);
  if (imm) return prevent(ctx, imm, { card: id });
  const block = counterBlock(st, id, counter);
  if (block) {
    emit(ctx, { event: 'counter_prevented', card: id, counter, count: n, clause: block });
    return;
  }
  if (n === 0) return;
  const card = st.cards[id];
  if (counter === 'freeze' && !card.counters.freeze) card.freezeAt = st.clock;
  card.counters[counter] = (card.counters[counter] || 0) + n;
  emit(ctx, { event: 'counter_added', card: id, counter, count: n });
  if (counter === 'sleep' && R.counterWorks(st, id, 'sleep')) {
    // 118.1: at once passive into its controller's reserve
    if (loc.zone === 'guard_post') {
      st.players[loc.player].guard_post.splice(loc.index, 1);
      st.players[loc.player].reserve.push(id);
      emit(ctx, { event: 'moved', card: id, from: 'guard_post', to: 'reserve', cause: 'effect',
        from_player: loc.player, to_player: loc.player });
    }
    if (card.active) {
      card.active = false;
      emit(ctx, { event: 'passivated', card: id });
    }
  }
};

VERBS.remove_counter = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  const counter = ctx.args.counter;
  const n = count(ctx, 1);
  const loc = tableTarget(ctx, id, '117.0');
  if (loc === 'prevented') return;
  const card = st.cards[id];
  const have = card.counters[counter] || 0;
  const k = Math.min(n, have);
  if (k <= 0) return;
  card.counters[counter] = have - k;
  if (!card.counters[counter]) {
    delete card.counters[counter];
    // 127.0.6: delay / temporary counters down to 0 are never put back
    if (counter === 'delay' || counter === 'temporary') card.exhausted = Object.assign({}, card.exhausted, { [counter]: true });
  }
  if (counter === 'freeze' && !card.counters.freeze) card.freezeAt = null;
  emit(ctx, { event: 'counter_removed', card: id, counter, count: k });
};

VERBS.sacrifice = (ctx) => {
  const st = ctx.state;
  const p = thePlayer(ctx);
  const id = needCard(ctx, ctx.args.card);
  const forced = !!ctx.args.forced;
  if (st.removed.includes(id)) return prevent(ctx, '107.0', { card: id, player: p });
  const loc = locate(st, id);
  if (loc && loc.zone === 'void') return prevent(ctx, '4.8.4', { card: id, player: p });
  // 104.0 / 105.0: a player sacrifices only a permanent of its own
  const clause = forced ? '104.0' : '105.0';
  if (!loc || !TABLE_ZONES.has(loc.zone) || loc.player !== p) return prevent(ctx, clause, { card: id, player: p });
  const r = R.moveCard(ctx, id, 'graveyard', { cause: 'sacrifice', leaveKind: forced ? 'forced_sacrifice' : 'sacrifice' });
  if (r === 'moved' || r === 'removed') emit(ctx, { event: 'sacrificed', player: p, card: id, forced });
};

VERBS.sacrifice_hp = (ctx) => {
  const st = ctx.state;
  const p = thePlayer(ctx);
  const amount = nonNegative(ctx, 'amount');
  const pl = st.players[p];
  if (ctx.args.as_cost && pl.hp < amount) throw new Refusal('103.2', 'fewer Ép than the sacrifice');
  // 103.1, 103.3: an Ép sacrifice never takes Ép below 0, and does nothing
  // to Ép already at 0 or below.
  const k = Math.max(0, Math.min(amount, pl.hp));
  pl.hp -= k;
  if (k > 0) emit(ctx, { event: 'hp_sacrificed', player: p, amount: k });
};

VERBS.sacrifice_max_hp = (ctx) => {
  const st = ctx.state;
  const p = thePlayer(ctx);
  const amount = nonNegative(ctx, 'amount');
  const pl = st.players[p];
  if (ctx.args.as_cost && pl.max_hp < amount) throw new Refusal('103.2', 'fewer maximum Ép than the sacrifice');
  const k = Math.max(0, Math.min(amount, pl.max_hp));
  pl.max_hp -= k;
  if (k > 0) emit(ctx, { event: 'max_hp_sacrificed', player: p, amount: k });
  // 103.4: the current Ép the lower maximum cuts off is an Ép sacrifice.
  if (pl.hp > pl.max_hp) {
    const cut = pl.hp - pl.max_hp;
    pl.hp = pl.max_hp;
    emit(ctx, { event: 'hp_sacrificed', player: p, amount: cut });
  }
};

VERBS.change_max_hp = (ctx) => {
  const p = thePlayer(ctx);
  const pl = ctx.state.players[p];
  const value = Math.max(0, pl.max_hp + (ctx.args.delta || 0));
  const delta = value - pl.max_hp;
  pl.max_hp = value;
  emit(ctx, { event: 'max_hp_changed', player: p, delta, value });
  R.capHp(ctx, p);
};

VERBS.change_max_vp = (ctx) => {
  const p = thePlayer(ctx);
  const pl = ctx.state.players[p];
  const value = Math.max(0, pl.max_vp + (ctx.args.delta || 0));
  const delta = value - pl.max_vp;
  pl.max_vp = value;
  emit(ctx, { event: 'max_vp_changed', player: p, delta, value });
  R.capVp(ctx, p);
};

VERBS.gain_vp = (ctx) => {
  R.gainVp(ctx, thePlayer(ctx), ctx.args.amount);
};

VERBS.gain_components = (ctx) => {
  const p = thePlayer(ctx);
  const pl = ctx.state.players[p];
  const amount = ctx.args.amount;
  if (amount >= 0) {
    pl.components += amount;
    if (amount > 0) emit(ctx, { event: 'components_gained', player: p, amount });
  } else {
    const lost = Math.min(-amount, pl.components); // never below 0 (115.0)
    pl.components -= lost;
    if (lost > 0) emit(ctx, { event: 'components_lost', player: p, amount: lost });
  }
};

VERBS.steal = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  const to = needPlayer(ctx, ctx.args.to !== undefined ? ctx.args.to : ctx.by);
  if (st.removed.includes(id)) return prevent(ctx, '107.0', { card: id });
  const loc = locate(st, id);
  if (loc && loc.zone === 'void') return prevent(ctx, '4.8.4', { card: id });
  if (!loc || !TABLE_ZONES.has(loc.zone) || loc.player === to) return prevent(ctx, '5.6.2', { card: id });
  if (R.hasKeyword(st, id, 'no_control_change')) return prevent(ctx, '131.10', { card: id });
  const imm = sourceImmunity(ctx, id);
  if (imm) return prevent(ctx, imm, { card: id });
  const card = st.cards[id];
  if (card.kind === 'creature' && (card.counters.life || 0) > 0) {
    // 134.4: a life counter is removed instead of the change of controller
    card.counters.life -= 1;
    if (!card.counters.life) delete card.counters.life;
    emit(ctx, { event: 'life_counter_used', card: id });
    return;
  }
  const from = loc.player;
  const abilities = R.abilitiesOf(st, id);
  // Events in order (hkk-rules.md, "Leaving the table"): moved {steal}; each
  // attached card's moved {attached} and control_changed; the muscle reward
  // (124.2); then the stolen card's control_changed.
  changeController(ctx, id, loc, to, 'steal', false);
  if (card.owner === from && (card.counters.muscle || 0) > 0) R.muscleReward(ctx, id, from, card.counters.muscle);
  emit(ctx, { event: 'control_changed', card: id, from, to });
  // Taken from its owner: penalty and compensation (135.2-135.5).
  if (card.owner === from) R.penaltyAndCompensation(ctx, id, abilities, from, R.removerPlayer(ctx));
};

// 5.3.2, 5.5.9: to the new controller's reserve (a creature) or table,
// keeping counters, wounds and activity; attached cards go along.
function changeController(ctx, id, loc, to, cause, announce) {
  const st = ctx.state;
  const card = st.cards[id];
  const zone = card.kind === 'creature' ? 'reserve' : 'table';
  st.players[loc.player][loc.zone].splice(loc.index, 1);
  st.players[to][zone].push(id);
  card.controller = to;
  emit(ctx, { event: 'moved', card: id, from: loc.zone, to: zone, cause, from_player: loc.player, to_player: to });
  for (const aid of R.tableCards(st)) {
    if (st.cards[aid].def.attached_to !== id) continue;
    const aloc = locate(st, aid);
    if (aloc.player === to) continue;
    changeController(ctx, aid, aloc, to, 'attached', true);
  }
  if (announce) emit(ctx, { event: 'control_changed', card: id, from: loc.player, to });
}

VERBS.create = (ctx) => {
  const st = ctx.state;
  const def = ctx.args.card;
  if (!def || typeof def !== 'object' || typeof def.id !== 'string') throw inputError('create: card definition without id');
  const id = def.id;
  if (Object.prototype.hasOwnProperty.call(st.cards, id)) throw inputError('create: id already exists: ' + id);
  const p = thePlayer(ctx);
  const isCreature = def.kind === 'creature';
  let zone = ctx.args.zone || (isCreature ? 'reserve' : 'table');
  if (zone === 'table' && isCreature) zone = 'reserve';
  if (TABLE_ZONES.has(zone) && (def.kind === 'instant' || def.kind === 'sorcery')) {
    return prevent(ctx, '4.9.1', { card: id, player: p });
  }
  if (zone === 'reserve' && !isCreature) return prevent(ctx, '5.3.1', { card: id, player: p });
  if (zone === 'guard_post' && !isCreature) return prevent(ctx, '5.4.1', { card: id, player: p });
  const d = Object.assign({}, def);
  delete d.id;
  d.owner = d.owner || p; // 96.7: the maker is the owner
  if (!d.standalone_token) d.premade = true;
  const card = R.newState({ cards: { [id]: d } }, st.ruleset).cards[id];
  card.owner = d.owner;
  st.cards[id] = card;
  emit(ctx, { event: 'created', card: id, player: p, zone });
  const destPlayer = TABLE_ZONES.has(zone) ? p : card.owner;
  let removeClause = null;
  let countsAs;
  let to = zone;
  if (card.standalone_token && !TABLE_ZONES.has(zone)) removeClause = 'rb7:jelzo';
  else if (card.premade && zone === 'void') removeClause = '96.8';
  else if (card.premade && zone === 'deck') {
    if (st.ruleset === 'kodex-4.15.1') { to = 'void'; countsAs = 'deck'; } else removeClause = '96.8';
  }
  if (removeClause) {
    st.removed.push(id);
  } else if (to === 'deck') {
    st.players[destPlayer].deck.unshift(id);
  } else {
    st.players[destPlayer][to].push(id);
  }
  if (!removeClause && TABLE_ZONES.has(to)) {
    card.enteredOtherwise = true; // not played: no delay / temporary counters (127.0.4)
    card.controller = destPlayer;
    card.active = R.enterActive(st, id, to);
    card.enteredAt = st.clock;
  }
  emit(ctx, { event: 'moved', card: id, from: 'created', to: removeClause ? 'removed' : to, cause: 'create',
    to_player: removeClause ? undefined : destPlayer, counts_as: countsAs });
  if (removeClause) emit(ctx, { event: 'removed_from_game', card: id, clause: removeClause });
};

VERBS.passivate = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  const loc = tableTarget(ctx, id, '5.5.7.1');
  if (loc === 'prevented') return;
  const card = st.cards[id];
  if (loc.zone === 'guard_post') return prevent(ctx, '5.4.5', { card: id });
  if (card.def.attached_to) return prevent(ctx, '5.5.4', { card: id });
  if (!card.active) return prevent(ctx, '5.5.7.1', { card: id });
  const imm = sourceImmunity(ctx, id);
  if (imm) return prevent(ctx, imm, { card: id });
  card.active = false;
  emit(ctx, { event: 'passivated', card: id });
};

VERBS.activate_card = (ctx) => {
  const st = ctx.state;
  const id = needCard(ctx, ctx.args.card);
  const loc = tableTarget(ctx, id, '4.9.3');
  if (loc === 'prevented') return;
  const card = st.cards[id];
  if (card.active) return;
  if ((card.counters.sleep || 0) > 0 && R.counterWorks(st, id, 'sleep')) return prevent(ctx, '118.1', { card: id });
  card.active = true;
  emit(ctx, { event: 'activated', card: id });
};

VERBS.search = (ctx) => {
  const st = ctx.state;
  const p = thePlayer(ctx);
  const id = needCard(ctx, ctx.args.card);
  const to = ctx.args.to || 'hand';
  const loc = locate(st, id);
  if (!loc || loc.zone !== 'deck' || loc.player !== p) return prevent(ctx, '4.13.1', { card: id, player: p });
  const mill = to === 'graveyard' || to === 'void';
  const r = R.moveCard(ctx, id, to, { cause: mill ? 'mill' : 'search' });
  if (mill && (r === 'moved' || r === 'removed')) emit(ctx, { event: 'milled', player: p, card: id, to });
  if (to !== 'deck_top') R.shuffleDeck(ctx, p);
};

VERBS.shuffle = (ctx) => {
  R.shuffleDeck(ctx, thePlayer(ctx));
};

VERBS.play = (ctx) => require('./play').play(ctx, VERBS);
VERBS.activate = (ctx) => require('./activate').activate(ctx, VERBS);

// ------------------------------------------------------------- the run

function runCase(c, ruleset) {
  let state;
  try {
    state = R.newState(c.given, ruleset);
  } catch (e) {
    return { errored: { message: 'input error of the case: ' + e.message } };
  }
  const events = [];
  const steps = Array.isArray(c.when) ? c.when : [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const keys = step && typeof step === 'object' ? Object.keys(step) : [];
    if (keys.length !== 1 || !VERBS[keys[0]]) {
      return { errored: { message: `step ${i} is not a known one-key step: ${JSON.stringify(step)}` } };
    }
    const verb = keys[0];
    const args = step[verb] || {};
    state.clock = i + 1;
    const before = structuredClone(state);
    const mark = events.length;
    const ctx = { state, events, verb, args, step: i, source: args.source, by: args.by || state.turn.active, savingFor: null };
    try {
      if (args.by !== undefined) needPlayer(ctx, args.by);
      if (args.source !== undefined) needCard(ctx, args.source, 'source');
      if (state.pending && verb !== 'choose') throw new Refusal('4.23.5', 'a decision is pending');
      R.resolveDying(ctx, verb, args);
      VERBS[verb](ctx);
      if (args.as_cost && events.slice(mark).some((e) => e.event === 'effect_prevented')) {
        throw new Refusal('4.20.3', 'a cost that cannot be paid in full');
      }
      R.checkImmunities(ctx);
      R.checkDeaths(ctx);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      events.length = mark;
      const refused = { step: i, clause: e.clause, message: e.message };
      if (e.clauses && e.clauses.length > 1) refused.clauses = e.clauses;
      // The end of the run is no life-saving action: a creature still dying
      // in the state before the refused step dies before it is returned
      // (hkk-rules.md, "Computed values of a card").
      if (e.clause !== 'hkk-case/1') {
        const end = { state: before, events, verb: null, args: {}, step: i, by: before.turn.active, savingFor: null };
        R.resolveDying(end, null, {});
        R.checkDeaths(end);
      }
      return { refused, state: R.outputState(before), events, result: before.result };
    }
  }
  // The steps are over: no step can save a dying creature any more.
  const ctx = { state, events, verb: null, args: {}, step: steps.length, by: state.turn.active, savingFor: null };
  R.resolveDying(ctx, null, {});
  R.checkDeaths(ctx);
  return { state: R.outputState(state), events, result: state.result };
}

module.exports = { runCase, VERBS, discardTasks };
