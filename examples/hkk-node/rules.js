// The rules of this example engine: state, zones, moves, resources, counters.
// Every rule here is taken from docs/spec (hkk-rules.md, hkk-case-format.md,
// hkk-vocabulary.md, hkk-verbs.md); the comments name the clause or the spec
// section. The game's result stays `ongoing`: only an end-of-turn check
// decides it (hkk-verbs.md), and this engine does not run turns.
'use strict';

const PLAYERS = ['A', 'B'];
const PHASES = ['preparation', 'draw', 'main1', 'exchange', 'combat', 'main2', 'end'];
const ZONES = ['deck', 'hand', 'reserve', 'guard_post', 'table', 'graveyard', 'void'];
const TABLE_ZONES = new Set(['reserve', 'guard_post', 'table']);
const DESTINATIONS = new Set(['hand', 'deck_top', 'deck_bottom', 'deck_shuffle', 'graveyard', 'void',
  'reserve', 'guard_post', 'table']);
// Definition fields returned "as given" (hkk-rules.md, "A returned card").
const AS_GIVEN = ['name', 'subtypes', 'cost', 'components_yield', 'abilities', 'attached_to', 'bonus',
  'effects', 'needs_target'];
// Counters that only a creature may carry (hkk-vocabulary.md, "Counters").
const CREATURE_ONLY = new Set(['poison', 'sleep', 'life', 'muscle', 'aging']);

const other = (p) => (p === 'A' ? 'B' : 'A');

// A player action refused under a rule, or an input error of the case.
// `also`: the other clauses that forbid the same step (hkk-protocol-additions.md,
// `refused.clauses`); the first of `clauses` is `clause`.
class Refusal extends Error {
  constructor(clause, message, also) {
    super(message || 'refused under ' + clause);
    this.clause = clause;
    this.clauses = [clause].concat((also || []).filter((c) => c && c !== clause));
  }
}
const inputError = (message) => new Refusal('hkk-case/1', message);

// ---------------------------------------------------------------- the state

function isPlayer(p) {
  return p === 'A' || p === 'B';
}

function newState(given, ruleset) {
  const g = given || {};
  const turn = g.turn || {};
  const state = {
    turn: { active: turn.active || 'A', phase: turn.phase || 'main1' },
    players: {},
    cards: {},
    removed: [],
    seed: Number.isInteger(g.seed) ? g.seed : 0,
    ruleset,
    pending: null,
    result: 'ongoing',
    shuffles: 0,
    clock: 0, // one tick per step: the timestamps of 102.3
  };
  if (!isPlayer(state.turn.active)) throw new Error('given.turn.active must be A or B');
  if (!PHASES.includes(state.turn.phase)) throw new Error('unknown phase ' + state.turn.phase);
  const gp = g.players || {};
  const listedBy = {};
  for (const p of PLAYERS) {
    const src = gp[p] || {};
    const pl = {
      hp: num(src.hp, 20), max_hp: num(src.max_hp, 20), vp: num(src.vp, 0), max_vp: num(src.max_vp, 20),
      components: num(src.components, 0), turn: num(src.turn, 1),
    };
    for (const z of ZONES) {
      pl[z] = Array.isArray(src[z]) ? src[z].slice() : [];
      for (const id of pl[z]) {
        if (!g.cards || !Object.prototype.hasOwnProperty.call(g.cards, id)) {
          throw new Error(`card ${id} in ${p}.${z} is not defined under cards`);
        }
        if (listedBy[id]) throw new Error(`card ${id} is listed twice`);
        listedBy[id] = { player: p, zone: z };
      }
    }
    state.players[p] = pl;
  }
  for (const [id, def] of Object.entries(g.cards || {})) {
    state.cards[id] = makeCard(id, def || {}, listedBy[id]);
    // A card in no zone: its owner is its `owner` field, default A
    // (hkk-rules.md, "Cards listed in no zone").
    if (!state.cards[id].owner) state.cards[id].owner = 'A';
  }
  for (const id of g.removed || []) {
    if (!state.removed.includes(id)) state.removed.push(id);
  }
  if (g.pending) {
    state.pending = Object.assign({}, g.pending);
  }
  return state;
}

function num(v, dflt) {
  return typeof v === 'number' ? v : dflt;
}

function makeCard(id, def, listed) {
  const card = {
    id,
    def: {},
    kind: def.kind,
    // A card in no zone has no listing player: newState() gives it owner A.
    owner: def.owner || (listed ? listed.player : null),
    premade: !!def.premade,
    standalone_token: !!def.standalone_token,
    baseDamage: typeof def.damage === 'number' ? def.damage : undefined,
    baseHp: typeof def.hp === 'number' ? def.hp : undefined,
    wounds: 0,
    counters: {},
    controller: undefined,
    active: undefined,
    explicitActive: def.active === true,
    dying: false,
    damagedBy: null,
    enteredAt: 0, // when it entered the table (a card of `given`: before every step)
    freezeAt: null, // when its first freeze counter was put on
  };
  for (const f of AS_GIVEN) {
    if (def[f] !== undefined) card.def[f] = structuredClone(def[f]);
  }
  if (listed && TABLE_ZONES.has(listed.zone)) {
    card.controller = listed.player; // hkk-rules.md: the player whose zone lists it
    card.active = def.active !== false; // default in given: active
    card.wounds = num(def.wounds, 0);
    for (const [k, v] of Object.entries(def.counters || {})) {
      if (v) card.counters[k] = v;
    }
    if (card.counters.freeze) card.freezeAt = 0;
  }
  return card;
}

function locate(state, id) {
  for (const p of PLAYERS) {
    for (const z of ZONES) {
      const i = state.players[p][z].indexOf(id);
      if (i >= 0) return { player: p, zone: z, index: i };
    }
  }
  return null;
}

function onTable(state, id) {
  const loc = locate(state, id);
  return !!loc && TABLE_ZONES.has(loc.zone);
}

function tableCards(state) {
  const out = [];
  for (const p of PLAYERS) {
    for (const z of ['reserve', 'guard_post', 'table']) {
      for (const id of state.players[p][z]) out.push(id);
    }
  }
  return out;
}

// ------------------------------------------------------------ abilities

function ownAbilities(card) {
  return Array.isArray(card.def.abilities) ? card.def.abilities : [];
}

function worksNow(card, ab) {
  // 127.0.4: a card that entered the table other than by being played never
  // got its delay / temporary counters: its delayed ability never works, its
  // temporary one not at all.
  if ((ab.delay || ab.temporary) && card.enteredOtherwise) return false;
  // 127.1 / 127.2: delayed abilities work once no delay counter is left,
  // temporary ones while a temporary counter is left.
  if (ab.delay && (card.counters.delay || 0) > 0) return false;
  if (ab.temporary && !((card.counters.temporary || 0) > 0)) return false;
  return true;
}

function isFrozen(card) {
  return (card.counters.freeze || 0) > 0 &&
    !ownAbilities(card).some((a) => a.keyword === 'unaffected_by' && a.counter === 'freeze');
}

// The abilities a card has now: its own (lost while frozen, 119.1) and the
// ones granted by cards sitting on it (128.1). A freeze counter and a grant:
// the later of the two wins (119.2, 102.3); the grant's time is when the
// giving card entered the table, the freeze's when the first freeze counter
// was put on (a tie, both from `given`, leaves the grant working).
function abilitiesOf(state, id) {
  const card = state.cards[id];
  const frozen = isFrozen(card);
  const list = frozen ? [] : ownAbilities(card).filter((a) => worksNow(card, a));
  if (onTable(state, id)) {
    for (const other of tableCards(state)) {
      const oc = state.cards[other];
      if (oc.def.attached_to !== id) continue;
      if (frozen && card.freezeAt !== null && card.freezeAt > oc.enteredAt) continue;
      for (const a of ownAbilities(oc)) {
        if (a.keyword === 'grant' && Array.isArray(a.abilities) && worksNow(oc, a)) list.push(...a.abilities);
      }
    }
  }
  return list;
}

function hasKeyword(state, id, kw) {
  return abilitiesOf(state, id).some((a) => a.keyword === kw);
}

function immuneTo(state, id, to) {
  return abilitiesOf(state, id).some((a) => a.keyword === 'immunity' && a.to === to);
}

function counterWorks(state, id, counter) {
  return !abilitiesOf(state, id).some((a) => a.keyword === 'unaffected_by' && a.counter === counter);
}

// ------------------------------------------------------ computed values

function computed(state, id) {
  const card = state.cards[id];
  let d = 0;
  let h = 0;
  if (onTable(state, id)) {
    const loc = locate(state, id);
    if (card.kind === 'creature' && loc.player !== state.turn.active) {
      d += 1; h += 1; // the defence bonus (rb7:vedekezes-bonusz)
    }
    const c = card.counters;
    const add = (name, sign) => {
      if (c[name] && counterWorks(state, id, name)) { d += sign * c[name]; h += sign * c[name]; }
    };
    add('muscle', 1);
    add('aging', -1);
    add('strength', 1);
    add('weakness', -1);
    if ((card.def.subtypes || []).includes('kalandozo')) add('level', 1);
    for (const oid of tableCards(state)) {
      const oc = state.cards[oid];
      if (oc.def.attached_to === id && oc.def.bonus) {
        d += oc.def.bonus.damage || 0;
        h += oc.def.bonus.hp || 0;
      }
    }
  }
  const out = {};
  if (card.baseDamage !== undefined) out.damage = Math.max(0, card.baseDamage + d);
  if (card.baseHp !== undefined) {
    out.max_hp = Math.max(0, card.baseHp + h);
    out.hp = out.max_hp - card.wounds;
  }
  return out;
}

function currentHp(state, id) {
  const v = computed(state, id).hp;
  return v === undefined ? 0 : v;
}

// --------------------------------------------------------------- output

function outputState(state) {
  const players = {};
  for (const p of PLAYERS) {
    const pl = state.players[p];
    players[p] = {};
    for (const k of ['hp', 'max_hp', 'vp', 'max_vp', 'components', 'turn']) players[p][k] = pl[k];
    for (const z of ZONES) players[p][z] = pl[z].slice();
  }
  const cards = {};
  for (const id of Object.keys(state.cards)) cards[id] = outputCard(state, id);
  const out = {
    turn: Object.assign({}, state.turn),
    players,
    cards,
    removed: state.removed.slice(),
    seed: state.seed,
    ruleset: state.ruleset,
  };
  if (state.pending) {
    out.pending = {};
    for (const [k, v] of Object.entries(state.pending)) if (!k.startsWith('_')) out.pending[k] = v;
  }
  return out;
}

function outputCard(state, id) {
  const card = state.cards[id];
  const loc = locate(state, id);
  const out = { kind: card.kind, owner: card.owner };
  if (state.removed.includes(id)) {
    out.zone = 'removed';
  } else if (loc) {
    out.zone = loc.zone;
    out.player = loc.player;
  } else {
    out.zone = null;
  }
  const table = !!loc && TABLE_ZONES.has(loc.zone);
  out.wounds = table ? card.wounds : 0;
  out.counters = table ? Object.assign({}, card.counters) : {};
  out.premade = card.premade;
  out.standalone_token = card.standalone_token;
  if (table) {
    out.controller = loc.player;
    out.active = !!card.active;
  }
  if (card.baseDamage !== undefined) out.base_damage = card.baseDamage;
  if (card.baseHp !== undefined) out.base_hp = card.baseHp;
  Object.assign(out, computed(state, id));
  for (const f of AS_GIVEN) {
    if (card.def[f] !== undefined) out[f] = structuredClone(card.def[f]);
  }
  if (card.dying) out.dying = true;
  return out;
}

// ------------------------------------------------------------- contexts

function sourcePlayer(ctx) {
  // The player of a step's source: the source card's controller (else
  // owner), or `by` for an unnamed source (hkk-rules.md, "source and by").
  if (ctx.source) {
    const st = ctx.state;
    const loc = locate(st, ctx.source);
    if (loc && TABLE_ZONES.has(loc.zone)) return loc.player;
    return st.cards[ctx.source].owner || ctx.by;
  }
  return ctx.by;
}

// The player whose source removes a card or takes it from its owner, for
// penalty and compensation (135.2-135.5): the player of the card whose effect
// it is (its controller, else its owner); otherwise the active player
// (hkk-rules.md, "Penalty and compensation").
function removerPlayer(ctx) {
  return ctx.source ? sourcePlayer(ctx) : ctx.state.turn.active;
}

function emit(ctx, ev) {
  const e = {};
  for (const [k, v] of Object.entries(ev)) if (v !== undefined && v !== null) e[k] = v;
  ctx.events.push(e);
}

// An effect, or part of it, that a rule stopped (4.24.2).
function prevent(ctx, clause, fields) {
  emit(ctx, Object.assign({ event: 'effect_prevented', verb: ctx.verb, clause }, fields || {}, { source: ctx.source }));
  return 'prevented';
}

// ------------------------------------------------------------- shuffles

function rand(state) {
  // mulberry32 over the seed and the number of shuffles so far
  let t = (state.seed + 0x6d2b79f5 * (++state.shuffles)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function shuffleDeck(ctx, p) {
  const deck = ctx.state.players[p].deck;
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(rand(ctx.state) * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  emit(ctx, { event: 'shuffled', player: p });
}

// --------------------------------------------------------- moving cards

// How a card leaves the table decides life counters, szörnykomponens,
// muscle rewards and penalties (hkk-rules.md, "Leaving the table").
//   effect           an effect moves it
//   damage           destroyed by damage
//   counter          destroyed by counters
//   sacrifice        unforced sacrifice (105)
//   forced_sacrifice forced sacrifice (104)
//   cost             paid as a cost (a sacrifice cost is unforced)
//   shadow           the shadow ability (136.9: not leaving play for related effects)
const LIFE_STOPS = new Set(['effect', 'damage', 'counter', 'forced_sacrifice', 'shadow']);
const YIELDS = new Set(['effect', 'damage', 'counter', 'forced_sacrifice']);
const PENALISED = new Set(['effect', 'damage']);
const MUSCLE_REWARDED = new Set(['effect', 'damage', 'counter', 'forced_sacrifice']);

function enterActive(state, id, zone) {
  const card = state.cards[id];
  if (zone === 'guard_post') return true; // 5.4.5
  if (card.kind === 'creature' || card.kind === 'building') {
    return card.explicitActive || ownAbilities(card).some((a) => a.keyword === 'flying');
  }
  return true;
}

// 134.4: a life counter is removed instead of the creature leaving.
function useLifeCounter(ctx, id, kind) {
  const card = ctx.state.cards[id];
  card.counters.life -= 1;
  if (!card.counters.life) delete card.counters.life;
  card.dying = false;
  emit(ctx, { event: 'life_counter_used', card: id });
  if (kind === 'damage') card.wounds = 0; // 134.4.2
  if (kind === 'counter') {
    // 134.4.3-134.4.4: one kind of Ép-lowering counter per life counter
    for (const c of ['aging', 'weakness']) {
      if (card.counters[c]) { delete card.counters[c]; break; }
    }
  }
}

function canUseLife(state, id, kind) {
  const card = state.cards[id];
  return card.kind === 'creature' && LIFE_STOPS.has(kind) && (card.counters.life || 0) > 0;
}

// Move a card to a destination of hkk-rules.md's table. Returns 'moved',
// 'removed', 'stayed' (a life counter kept it) or 'prevented'.
function moveCard(ctx, id, dest, o) {
  o = o || {};
  const st = ctx.state;
  const card = st.cards[id];
  if (st.removed.includes(id)) return prevent(ctx, '107.0', { card: id });
  const loc = locate(st, id);
  if (!loc) return prevent(ctx, '4.5.2', { card: id });
  if (loc.zone === 'void') return prevent(ctx, '4.8.4', { card: id }); // nothing leaves the Void
  const fromTable = TABLE_ZONES.has(loc.zone);
  const isCreature = card.kind === 'creature';
  let zone;
  let player;
  if (TABLE_ZONES.has(dest)) {
    if (card.kind === 'instant' || card.kind === 'sorcery') return prevent(ctx, '4.9.1', { card: id });
    zone = dest === 'table' && isCreature ? 'reserve' : dest; // 5.3.1
    if (zone === 'reserve' && !isCreature) return prevent(ctx, '5.3.1', { card: id });
    if (zone === 'guard_post' && !isCreature) return prevent(ctx, '5.4.1', { card: id });
    if (zone === 'guard_post' && fromTable && !card.active && loc.zone !== 'guard_post') {
      return prevent(ctx, '5.4.5', { card: id });
    }
    player = o.destPlayer || (fromTable ? loc.player : card.owner);
  } else if (dest.startsWith('deck_')) {
    zone = 'deck';
    player = o.destPlayer || card.owner;
  } else {
    zone = dest;
    player = o.destPlayer || card.owner;
  }
  if (!player) player = loc.player;
  let removeClause = null;
  let countsAs;
  if (card.standalone_token && !TABLE_ZONES.has(zone)) {
    removeClause = 'rb7:jelzo';
  } else if (card.premade && zone === 'void') {
    removeClause = '96.8';
  } else if (card.premade && zone === 'deck') {
    if (st.ruleset === 'kodex-4.15.1') {
      zone = 'void';
      countsAs = 'deck'; // 4.15.1
    } else {
      removeClause = '96.8';
    }
  }
  if (fromTable && dest === 'void') countsAs = 'graveyard'; // 4.16.2
  const leaving = fromTable && (removeClause !== null || !TABLE_ZONES.has(zone));
  const kind = o.leaveKind || 'effect';
  if (leaving && canUseLife(st, id, kind)) {
    useLifeCounter(ctx, id, kind);
    return 'stayed';
  }
  // What the card carried before it moved.
  const prevController = fromTable ? loc.player : undefined;
  const muscle = fromTable ? (card.counters.muscle || 0) : 0;
  const abilitiesBefore = fromTable ? abilitiesOf(st, id) : [];

  st.players[loc.player][loc.zone].splice(loc.index, 1);
  if (removeClause) {
    st.removed.push(id);
  } else if (zone === 'deck' && dest !== 'deck_bottom') {
    st.players[player].deck.unshift(id);
  } else {
    st.players[player][zone].push(id);
  }
  if (leaving) {
    card.wounds = 0;
    card.counters = {};
    card.exhausted = {};
    card.active = undefined;
    card.controller = undefined;
    card.dying = false;
    card.damagedBy = null;
    card.freezeAt = null;
    delete card.def.attached_to;
  } else if (!fromTable && TABLE_ZONES.has(zone)) {
    card.enteredOtherwise = true; // play() clears it: the card was played (127.0.4)
    card.wounds = 0;
    card.counters = {};
    card.exhausted = {};
    card.dying = false;
    card.controller = player;
    card.active = enterActive(st, id, zone);
    card.enteredAt = st.clock;
    card.freezeAt = null;
  } else if (fromTable) {
    card.controller = player;
  }
  emit(ctx, {
    event: 'moved', card: id, from: loc.zone, to: removeClause ? 'removed' : zone, cause: o.cause || 'effect',
    from_player: loc.player, to_player: removeClause ? undefined : player, counts_as: countsAs,
  });
  if (removeClause) emit(ctx, { event: 'removed_from_game', card: id, clause: removeClause });
  if (dest === 'deck_shuffle' && !removeClause && zone === 'deck') shuffleDeck(ctx, player);
  if (!leaving) return removeClause ? 'removed' : 'moved';

  // szörnykomponens (rb7:lenyek)
  const boundFor = dest.startsWith('deck_') ? 'deck' : dest;
  if (isCreature && !card.standalone_token && (boundFor === 'graveyard' || boundFor === 'void') &&
      YIELDS.has(kind) && st.turn.phase !== 'preparation' && (card.def.components_yield || 0) > 0) {
    const gainer = other(prevController);
    st.players[gainer].components += card.def.components_yield;
    emit(ctx, { event: 'components_gained', player: gainer, amount: card.def.components_yield, from: id });
  }
  // attached cards go to their owners' graveyards (5.5.5)
  for (const aid of tableCards(st)) {
    if (st.cards[aid].def.attached_to === id) {
      moveCard(ctx, aid, 'graveyard', { cause: 'attached', leaveKind: 'effect', responsible: o.responsible });
    }
  }
  if (muscle > 0 && MUSCLE_REWARDED.has(kind)) muscleReward(ctx, id, prevController, muscle);
  if (PENALISED.has(kind)) {
    // A penalty or compensation set off while a card's effects resolve comes
    // after all of them (hkk-rules.md, "Penalty and compensation").
    const settle = () => penaltyAndCompensation(ctx, id, abilitiesBefore, prevController, o.responsible);
    if (ctx.deferred) ctx.deferred.push(settle);
    else settle();
  }
  return removeClause ? 'removed' : 'moved';
}

// 124.2-124.6: 1 VP per counter while below the maximum, a draw beyond that.
function muscleReward(ctx, id, player, n) {
  const pl = ctx.state.players[player];
  const vp = Math.min(n, Math.max(0, pl.max_vp - pl.vp));
  const draws = n - vp;
  emit(ctx, { event: 'muscle_reward', card: id, player, draw: draws, vp });
  for (let i = 0; i < draws; i++) {
    if (!pl.deck.length) break;
    drawOne(ctx, player);
  }
  if (vp > 0) {
    pl.vp += vp;
    emit(ctx, { event: 'vp_gained', player, amount: vp });
  }
}

// 135.2-135.5
function penaltyAndCompensation(ctx, id, abilities, controller, responsible) {
  const st = ctx.state;
  const by = responsible || removerPlayer(ctx);
  for (const a of abilities) {
    if (a.keyword !== 'penalty') continue;
    const hp = a.hp || 0;
    const vp = a.vp || 0;
    emit(ctx, { event: 'penalty', card: id, player: by, hp, vp });
    if (hp > 0) {
      st.players[by].hp -= hp;
      emit(ctx, { event: 'damaged', target: by, amount: hp });
    }
    loseVp(ctx, by, vp);
  }
  if (!controller || by === controller) return;
  for (const a of abilities) {
    if (a.keyword !== 'compensation') continue;
    const hp = a.hp || 0;
    const vp = a.vp || 0;
    emit(ctx, { event: 'compensation', card: id, player: controller, hp, vp });
    healPlayer(ctx, controller, hp);
    gainVp(ctx, controller, vp);
  }
}

function drawOne(ctx, p) {
  const id = ctx.state.players[p].deck[0];
  moveCard(ctx, id, 'hand', { cause: 'draw' });
  emit(ctx, { event: 'drew', player: p, card: id });
}

// ------------------------------------------------------------ resources

function healPlayer(ctx, p, amount) {
  const pl = ctx.state.players[p];
  const gain = Math.max(0, Math.min(amount, pl.max_hp - pl.hp));
  pl.hp += gain;
  if (gain > 0) emit(ctx, { event: 'healed', target: p, amount: gain });
  if (amount - gain > 0) emit(ctx, { event: 'hp_excess_lost', player: p, amount: amount - gain }); // 3.18
}

function gainVp(ctx, p, amount) {
  const pl = ctx.state.players[p];
  if (amount < 0) return loseVp(ctx, p, -amount);
  const gain = Math.max(0, Math.min(amount, pl.max_vp - pl.vp));
  pl.vp += gain;
  if (gain > 0) emit(ctx, { event: 'vp_gained', player: p, amount: gain });
  if (amount - gain > 0) emit(ctx, { event: 'vp_excess_lost', player: p, amount: amount - gain }); // 3.18
}

function loseVp(ctx, p, amount) {
  const pl = ctx.state.players[p];
  const lost = Math.min(amount, pl.vp); // never below 0 (115.0)
  pl.vp -= lost;
  if (lost > 0) emit(ctx, { event: 'vp_lost', player: p, amount: lost });
}

function capHp(ctx, p) {
  const pl = ctx.state.players[p];
  if (pl.hp > pl.max_hp) {
    const excess = pl.hp - pl.max_hp;
    pl.hp = pl.max_hp;
    emit(ctx, { event: 'hp_excess_lost', player: p, amount: excess });
  }
}

function capVp(ctx, p) {
  const pl = ctx.state.players[p];
  if (pl.vp > pl.max_vp) {
    const excess = pl.vp - pl.max_vp;
    pl.vp = pl.max_vp;
    emit(ctx, { event: 'vp_excess_lost', player: p, amount: excess });
  }
}

// -------------------------------------------------------------- deaths

// A creature at 0 Ép or less, or a building whose wounds reached its SP.
function destroy(ctx, id, kind, responsible) {
  const st = ctx.state;
  const card = st.cards[id];
  if (card.kind === 'creature' && canUseLife(st, id, kind)) {
    useLifeCounter(ctx, id, kind);
    return;
  }
  card.dying = false;
  emit(ctx, { event: card.kind === 'building' ? 'destroyed' : 'died', card: id });
  moveCard(ctx, id, 'graveyard', { cause: 'destroy', leaveKind: kind, responsible });
}

// After a step: deaths that have no window (not by damage), buildings, and
// dying creatures a life-saving step did not save.
function checkDeaths(ctx) {
  const st = ctx.state;
  for (let guard = 0; guard < 100; guard++) {
    let changed = false;
    for (const id of tableCards(st)) {
      const card = st.cards[id];
      if (card.kind !== 'creature' && card.kind !== 'building') continue;
      if (card.baseHp === undefined) continue;
      if (currentHp(st, id) > 0) {
        card.dying = false;
        continue;
      }
      if (card.dying && ctx.savingFor !== id) continue; // waits for the next step
      const byDamage = card.dying || (card.kind === 'building' && card.wounds > 0);
      const lives = card.counters.life || 0;
      destroy(ctx, id, byDamage ? 'damage' : 'counter', card.damagedBy);
      const after = st.cards[id];
      if (!onTable(st, id) || (after.counters.life || 0) !== lives) changed = true;
      if (changed) break;
    }
    if (!changed) return;
  }
}

// After a step: what an immunity takes off a card (132.3: poison counters
// fall off; 132.5.1: enchantments it is immune to fall off).
function checkImmunities(ctx) {
  const st = ctx.state;
  for (const id of tableCards(st)) {
    const card = st.cards[id];
    if (card.counters.poison && (immuneTo(st, id, 'poison') || hasKeyword(st, id, 'poison_immunity'))) {
      const n = card.counters.poison;
      delete card.counters.poison;
      emit(ctx, { event: 'counter_removed', card: id, counter: 'poison', count: n, clause: '132.3' });
    }
  }
  for (const id of tableCards(st)) {
    const host = st.cards[id].def.attached_to;
    if (st.cards[id].kind !== 'enchantment' || !host || !onTable(st, host)) continue;
    // The card that grants the immunity cannot be pushed off by it.
    const grants = (ownAbilities(st.cards[id]).find((a) => a.keyword === 'grant') || {}).abilities || [];
    if (grants.some((a) => a.keyword === 'immunity')) continue;
    if (immuneTo(st, host, 'enchantment') || immuneTo(st, host, 'source') || immuneTo(st, host, 'magic')) {
      moveCard(ctx, id, 'graveyard', { cause: 'effect' });
    }
  }
}

// The activation of its regeneration, named by keyword or by its index in
// the card's abilities (hkk-verbs.md, "Activated abilities").
function isRegeneration(card, ability) {
  if (ability === 'regeneration') return true;
  const own = ownAbilities(card);
  return Number.isInteger(ability) && !!own[ability] && own[ability].keyword === 'regeneration';
}

// Before a step: a dying creature dies unless the step may save it.
function resolveDying(ctx, verb, args) {
  const st = ctx.state;
  for (const id of tableCards(st)) {
    const card = st.cards[id];
    if (!card.dying) continue;
    const saving = (verb === 'heal' && args.target === id) ||
      (verb === 'play' && Array.isArray(args.targets) && args.targets.includes(id)) ||
      (verb === 'activate' && args.card === id && isRegeneration(card, args.ability));
    if (saving) {
      ctx.savingFor = id;
      continue;
    }
    destroy(ctx, id, 'damage', card.damagedBy);
  }
}

module.exports = {
  PLAYERS, PHASES, ZONES, TABLE_ZONES, DESTINATIONS, CREATURE_ONLY, Refusal, inputError, other, isPlayer,
  newState, locate, onTable, tableCards, abilitiesOf, hasKeyword, immuneTo, counterWorks, computed,
  currentHp, outputState, sourcePlayer, removerPlayer, emit, prevent, shuffleDeck, moveCard, drawOne,
  healPlayer, gainVp, loseVp, capHp, capVp, destroy, checkDeaths, checkImmunities, resolveDying,
  enterActive, muscleReward, penaltyAndCompensation,
};
