// The `play` action: timing, targets, the cost, where the card goes, the
// on-play keywords and the card's own `effects` (hkk-case-format.md "The
// steps", hkk-rules.md "The destination each verb uses", hkk-vocabulary.md
// "Keyword abilities" and "Refusal clauses").
'use strict';

const R = require('./rules');

const { TABLE_ZONES, Refusal, inputError, emit, locate } = R;

const MAIN_PHASES = new Set(['main1', 'main2']);
const ON_TABLE_KINDS = new Set(['building', 'enchantment', 'item', 'skill', 'body_part', 'location']);

function keywordOf(card, kw) {
  return (card.def.abilities || []).find((a) => a.keyword === kw);
}

// "$target" stands for the first target of the play.
function substitute(value, target) {
  if (value === '$target') return target;
  if (Array.isArray(value)) return value.map((v) => substitute(v, target));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, target);
    return out;
  }
  return value;
}

// The card's own effects, carried out with the card as source and its
// player as `by`; an effect is never refused (4.24.2).
function runEffects(ctx, VERBS, id, p, targets, steps) {
  const concrete = (steps || []).map((step) => {
    const verb = Object.keys(step)[0];
    const args = Object.assign({}, substitute(step[verb] || {}, targets[0]));
    if (args.source === undefined) args.source = id;
    if (args.by === undefined) args.by = p;
    return { [verb]: args };
  });
  runSteps(ctx, VERBS, concrete);
}

// Effect steps in the `when` form, each naming its `source` and `by`.
function runSteps(ctx, VERBS, list) {
  for (let i = 0; i < list.length; i++) {
    if (ctx.state.pending) {
      // A decision the effects opened suspends the rest until `choose`
      // answers it: they are the pending decision's `then` (hkk-rules.md,
      // "Pending decisions").
      const pend = ctx.state.pending;
      pend.then = (pend.then || []).concat(list.slice(i));
      return;
    }
    const step = list[i];
    const verb = Object.keys(step)[0];
    if (!VERBS[verb]) throw new Error(`effect verb not implemented: ${verb}`);
    const args = step[verb];
    const sub = Object.assign({}, ctx, { verb, args, source: args.source, by: args.by || ctx.by });
    try {
      VERBS[verb](sub);
    } catch (e) {
      if (!(e instanceof Refusal) || e.clause === 'hkk-case/1') throw e;
      R.prevent(sub, e.clause, {});
    }
  }
}

const PHASE_CLAUSE = { exchange: 'rb7:csere-fazis', combat: 'rb7:harci-fazis', end: 'rb7:gyogyulasi-fazis' };

// Timing (hkk-verbs.md, "Playing a card"; vocabulary "Refusal clauses"):
// the clauses that forbid playing the card now, or null. 4.11.6 (who acts
// first) never applies here: this engine never enters a phase by a step.
function timingClauses(st, card, p) {
  const { active, phase } = st.turn;
  if (phase === 'preparation') return ['rb7:elokeszito-fazis'];
  if (phase === 'draw') return ['rb7:kijatszasi-sorrend'];
  if (card.kind === 'instant') return null;
  const own = PHASE_CLAUSE[phase] ? [PHASE_CLAUSE[phase]] : [];
  if (p !== active) return ['rb7:varazslatok'].concat(own);
  if (MAIN_PHASES.has(phase)) return null;
  if (card.kind === 'sorcery' || card.kind === 'enchantment') return ['rb7:varazslatok'].concat(own);
  return ['rb7:fo-fazis'].concat(own);
}

// 134.6 blocking, 134.9 anti-blocking: on a successful play from the hand.
function blockingKeyword(ctx, VERBS, ab, id, p, from, targets) {
  if (from !== 'hand') return;
  if (ab.keyword === 'blocking') {
    runEffects(ctx, VERBS, id, p, targets, [{ change_max_vp: { player: R.other(p), delta: -(ab.x || 0) } }]);
  } else {
    runEffects(ctx, VERBS, id, p, targets, [{ change_max_vp: { player: p, delta: ab.x || 0 } }]);
  }
}

const isSpell = (card) => ['instant', 'sorcery', 'enchantment'].includes(card.kind);

// 134.10 anti-magic, 134.15 anti-neutralization: after the card's other
// on-play effects every player discards X spells (instants, sorceries and
// enchantments, hkk-verbs.md "Anti-magic") or X cards with neutralization:
// the playing player first and into the Void, the other into the graveyard.
// A player holding more than X chooses (`pending {choice: anti_magic}`); one
// holding X or fewer discards them all and shows the hand (134.11).
function antiMagic(ctx, card, p) {
  const { discardTasks } = require('./verbs');
  const st = ctx.state;
  const tasks = [];
  const spell = (c) => isSpell(st.cards[c]);
  const neutralizer = (c) => (st.cards[c].def.abilities || []).some((a) => a.keyword === 'neutralization');
  for (const [kw, test] of [['anti_magic', spell], ['anti_neutralization', neutralizer]]) {
    const ab = keywordOf(card, kw);
    if (!ab || !ab.x) continue;
    for (const who of [p, R.other(p)]) {
      tasks.push({
        player: who, count: ab.x, to: who === p ? 'void' : 'graveyard', reveal: true, choice: kw,
        options: st.players[who].hand.filter(test), clause: kw === 'anti_magic' ? '134.10' : '134.15',
      });
    }
  }
  if (!tasks.length) return;
  if (st.pending) st.pending._next = (st.pending._next || []).concat(tasks); // after the open decision
  else discardTasks(ctx, tasks);
}

// What a turn allowed so far, within the run (this engine never changes the
// turn): the nekron cards played per player, the vision cards' names.
function turnLog(st) {
  st.turnLog = st.turnLog || { nekron: { A: 0, B: 0 }, vision: [] };
  return st.turnLog;
}

function play(ctx, VERBS) {
  const st = ctx.state;
  const a = ctx.args;
  const p = a.player !== undefined ? a.player : ctx.by;
  if (!R.isPlayer(p)) throw inputError('play: unknown player ' + JSON.stringify(p));
  const id = a.card;
  if (typeof id !== 'string' || !st.cards[id]) throw inputError('play: card not defined: ' + JSON.stringify(id));
  const card = st.cards[id];
  const from = a.from || 'hand';
  const targets = Array.isArray(a.targets) ? a.targets : [];
  for (const t of targets) {
    if (!R.isPlayer(t) && !st.cards[t]) throw inputError('play: target not defined: ' + JSON.stringify(t));
  }
  const pay = a.pay && typeof a.pay === 'object' ? a.pay : {};
  const pl = st.players[p];
  const vision = (card.def.subtypes || []).includes('vizio');
  const name = card.def.name !== undefined ? card.def.name : id;

  // Where the card is played from.
  const loc = locate(st, id);
  if (st.removed.includes(id)) throw new Refusal('107.0', 'the card has left the game');
  if (loc && loc.zone === 'void') throw new Refusal('4.8.4', 'nothing leaves the Void');
  if (!loc || loc.zone !== from || loc.player !== p) throw new Refusal('4.21.0', `${id} is not in ${p}'s ${from}`);
  const resurrecting = from === 'graveyard' && card.kind === 'creature' && !!keywordOf(card, 'resurrection');
  if (from === 'graveyard' && !resurrecting && !vision && card.kind !== 'instant' && card.kind !== 'sorcery') {
    // only instants, sorceries, vision cards and resurrecting creatures (4.7.6)
    throw new Refusal('4.7.6', `${id} cannot be played from the graveyard`);
  }
  const timing = timingClauses(st, card, p);
  if (timing && resurrecting) {
    throw new Refusal('131.8', 'a resurrecting creature is played only in its player\'s main phases', timing);
  }
  if (timing) throw new Refusal(timing[0], `${card.kind} cannot be played now`, timing.slice(1));

  // Limits per turn (hkk-verbs.md, "Playing a card").
  const log = turnLog(st);
  if (vision && log.vision.includes(name)) throw new Refusal('rb7:vizio', `a vision card named ${name} was played this turn`);
  const cost = card.def.cost || {};
  const need = (k) => Math.max(0, cost[k] || 0); // a cost is never below 0
  if (need('nekron') > 0 && p === st.turn.active && pl.turn <= 3 && log.nekron[p] >= 1) {
    throw new Refusal('rb7:semmizos-idezesi-koltseg-nekron', 'one nekron card per turn in the first three own turns');
  }

  // Targets.
  if (card.def.needs_target && targets.length === 0) throw new Refusal('rb7:celpont', 'the card needs a target');
  if (card.kind === 'body_part') {
    // a body part goes on a galetki on the table; a torzszülött is no galetki
    const t = targets[0];
    const subs = t && !R.isPlayer(t) ? (st.cards[t].def.subtypes || []) : [];
    if (!t || R.isPlayer(t) || st.cards[t].kind !== 'creature' || !R.onTable(st, t) ||
        !subs.includes('galetki') || subs.includes('torzszulott')) {
      throw new Refusal('rb7:testreszek', 'a body part must target a galetki on the table');
    }
  }
  if (card.kind === 'enchantment' && targets.length && !R.isPlayer(targets[0]) && !R.onTable(st, targets[0])) {
    throw new Refusal('rb7:celpont', 'an enchantment sits on a card on the table');
  }
  for (const t of targets) {
    if (!R.isPlayer(t) && R.hasKeyword(st, t, 'untargetable')) throw new Refusal('132.11', `${t} is untargetable`);
  }
  if (card.kind === 'enchantment' && targets.length && !R.isPlayer(targets[0])) {
    // 132.6 / 132.5 / 132.4: no enchantment is put on a card immune to it
    const t = targets[0];
    if (R.immuneTo(st, t, 'enchantment')) throw new Refusal('132.6', `${t} is immune to enchantments`);
    if (R.immuneTo(st, t, 'source')) throw new Refusal('132.5', `${t} is immune to every source`);
    if (R.immuneTo(st, t, 'magic')) throw new Refusal('132.4', `${t} is immune to magic`);
  }

  // The cost, paid whole or not at all (4.20.3), from the player's own means (4.20.2).
  const list = (k) => (Array.isArray(pay[k]) ? pay[k] : []);
  if (pl.vp < need('vp')) throw new Refusal('4.20.3', 'not enough VP');
  if (pl.components < need('components')) throw new Refusal('4.20.3', 'not enough szörnykomponens');
  // nekron N: 4·N cards from the top of the player's own deck into the Void (4.8.1)
  const nekronCards = 4 * need('nekron');
  if (pl.deck.length < nekronCards) {
    throw new Refusal('4.20.3', 'not enough cards in the deck for nekron', ['rb7:semmizos-idezesi-koltseg-nekron']);
  }
  const sacrifices = list('sacrifice');
  const builders = list('builders');
  if (new Set(sacrifices).size !== sacrifices.length || new Set(builders).size !== builders.length) {
    throw new Refusal('4.20.3', 'a card named twice');
  }
  if (sacrifices.length < need('sacrifice')) {
    throw new Refusal('4.20.3', 'not enough permanents named to sacrifice', ['rb7:lapaldozas']);
  }
  for (const s of sacrifices) {
    const sl = st.cards[s] ? locate(st, s) : null;
    if (!sl || !TABLE_ZONES.has(sl.zone)) throw new Refusal('4.20.3', `${s} is not on the table`, ['rb7:lapaldozas']);
    if (sl.player !== p) throw new Refusal('4.20.2', `${s} is not ${p}'s permanent`, ['rb7:lapaldozas', '105.0']);
  }
  if (builders.length < need('builders')) {
    throw new Refusal('4.20.3', 'not enough builders named', ['rb7:epitmenyek']);
  }
  for (const b of builders) {
    const bl = st.cards[b] ? locate(st, b) : null;
    if (bl && TABLE_ZONES.has(bl.zone) && bl.player !== p) {
      throw new Refusal('4.20.2', `${b} is not ${p}'s creature`, ['rb7:epitmenyek']);
    }
    if (!bl || bl.zone !== 'reserve' || bl.player !== p || !st.cards[b].active || st.cards[b].kind !== 'creature') {
      throw new Refusal('4.20.3', `${b} is not an active creature in ${p}'s reserve`, ['rb7:epitmenyek']);
    }
  }
  const both = builders.find((b) => sacrifices.includes(b));
  if (both) throw new Refusal('4.20.3', `${both} cannot be both a builder and a sacrifice`, ['rb7:lapaldozas']);
  const muscle = keywordOf(card, 'muscle');
  const muscleCards = list('muscle');
  if (muscleCards.length && (!muscle || muscleCards.length > (muscle.x || 0))) {
    throw new Refusal('134.5', 'too many cards for muscle');
  }
  if (new Set(muscleCards).size !== muscleCards.length) throw new Refusal('134.5', 'a muscle card named twice');
  for (const m of muscleCards) {
    if (!pl.hand.includes(m) || m === id) throw new Refusal('134.5', `${m} is not in ${p}'s hand`);
  }
  const seduction = keywordOf(card, 'seduction');
  if (seduction && targets.length) {
    // 134.14: another player's creature in play of summoning cost <= X
    const t = targets[0];
    const tl = R.isPlayer(t) ? null : locate(st, t);
    if (!tl || !TABLE_ZONES.has(tl.zone) || tl.player === p || st.cards[t].kind !== 'creature' ||
        ((st.cards[t].def.cost || {}).vp || 0) > (seduction.x || 0)) {
      throw new Refusal('134.14', `${t} cannot be seduced`);
    }
  }
  const recycling = keywordOf(card, 'recycling');
  const recycleCards = list('recycle');
  if (recycleCards.length) {
    if (!recycling || recycleCards.length > (recycling.x || 0)) throw new Refusal('135.8', 'too many cards to recycle');
    const gy = recycleCards.map((c) => (st.cards[c] ? locate(st, c) : null));
    if (gy.some((l) => !l || l.zone !== 'graveyard') || new Set(gy.map((l) => l.player)).size > 1) {
      throw new Refusal('135.8', 'recycled cards must come from one graveyard');
    }
  }

  // Pay.
  if (need('nekron') > 0) log.nekron[p] += 1;
  if (vision) log.vision.push(name);
  if (need('vp')) {
    pl.vp -= need('vp');
    emit(ctx, { event: 'vp_spent', player: p, amount: need('vp') });
  }
  if (need('components')) {
    pl.components -= need('components');
    emit(ctx, { event: 'components_spent', player: p, amount: need('components') });
  }
  for (let i = 0; i < nekronCards; i++) {
    R.moveCard(ctx, pl.deck[0], 'void', { cause: 'nekron' }); // 4.8.1, not a mill (4.18.2)
  }
  for (const s of sacrifices) {
    const r = R.moveCard(ctx, s, 'graveyard', { cause: 'sacrifice', leaveKind: 'cost' });
    if (r === 'moved' || r === 'removed') emit(ctx, { event: 'sacrificed', player: p, card: s, forced: false });
  }
  for (const b of builders) {
    st.cards[b].active = false;
    emit(ctx, { event: 'passivated', card: b });
  }

  const forCost = from === 'hand' || from === 'graveyard';
  const deferred = [];
  const sub = Object.assign({}, ctx, { deferred });
  // On-play abilities, in the order they are written on the card (134.1.2).
  const onPlay = (ab) => {
    switch (ab.keyword) {
      case 'life':
        if (ab.x && forCost && card.kind === 'creature' && R.onTable(st, id)) {
          card.counters.life = (card.counters.life || 0) + ab.x;
          emit(ctx, { event: 'counter_added', card: id, counter: 'life', count: ab.x });
        }
        break;
      case 'muscle':
        // 134.5: the named cards are discarded into the Void at this entry's
        // turn, then that many muscle counters go on the creature.
        for (const m of muscleCards) {
          const r = R.moveCard(sub, m, 'void', { cause: 'discard' });
          if (r === 'moved' || r === 'removed') emit(ctx, { event: 'discarded', player: p, card: m, to: 'void' });
        }
        if (muscleCards.length && R.onTable(st, id)) {
          card.counters.muscle = (card.counters.muscle || 0) + muscleCards.length;
          emit(ctx, { event: 'counter_added', card: id, counter: 'muscle', count: muscleCards.length });
        }
        break;
      case 'blocking':
      case 'anti_blocking':
        blockingKeyword(sub, VERBS, ab, id, p, from, targets);
        break;
      case 'seduction': {
        const t = targets[0];
        if (t) runEffects(sub, VERBS, id, p, targets, [{ steal: { card: t, to: p } }]);
        else runEffects(sub, VERBS, id, p, targets, [{ put_counter: { card: id, counter: 'strength', count: 1 } }]);
        break;
      }
      case 'recycling':
        if (recycleCards.length) {
          for (const c of recycleCards) R.moveCard(sub, c, 'deck_shuffle', { cause: 'shuffle' });
          emit(ctx, { event: 'recycled', card: id, player: p, count: recycleCards.length });
          R.healPlayer(ctx, p, recycleCards.length);
        }
        break;
      default:
    }
  };
  if (card.kind === 'instant' || card.kind === 'sorcery') {
    emit(ctx, { event: 'played', player: p, card: id, from });
    for (const ab of card.def.abilities || []) onPlay(ab);
    runEffects(sub, VERBS, id, p, targets, card.def.effects);
    const where = locate(st, id);
    if (where && where.zone === from) R.moveCard(sub, id, 'graveyard', { cause: 'resolve' }); // 4.7.1
  } else {
    const zone = card.kind === 'creature' ? 'reserve' : 'table';
    if (!ON_TABLE_KINDS.has(card.kind) && card.kind !== 'creature') throw inputError('play: unknown kind ' + card.kind);
    R.moveCard(sub, id, zone, { cause: from === 'deck' ? 'search' : 'play', destPlayer: p });
    card.enteredOtherwise = false; // played: it gets its delay / temporary counters (127.0.0)
    emit(ctx, { event: 'played', player: p, card: id, from });
    if ((card.kind === 'enchantment' || card.kind === 'body_part') && targets.length && !R.isPlayer(targets[0])) {
      card.def.attached_to = targets[0];
    }
    if (card.kind === 'location') {
      // rb7:helyszin: every other location on the table goes to its owner's graveyard
      for (const other of R.tableCards(st)) {
        if (other !== id && st.cards[other].kind === 'location') {
          R.moveCard(sub, other, 'graveyard', { cause: 'effect', responsible: p });
        }
      }
    }
    for (const c of ['delay', 'temporary']) {
      const x = Math.max(0, ...(card.def.abilities || []).map((ab) => ab[c] || 0));
      if (x > 0) {
        card.counters[c] = x;
        emit(ctx, { event: 'counter_added', card: id, counter: c, count: x });
      }
    }
    for (const ab of card.def.abilities || []) onPlay(ab);
    runEffects(sub, VERBS, id, p, targets, card.def.effects);
  }
  antiMagic(sub, card, p);
  for (const f of deferred) f();
}

module.exports = { play, runEffects, runSteps };
