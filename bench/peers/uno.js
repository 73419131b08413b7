// A simplified UNO as a boardgame.io 0.50 game: the peer of Toadstool's UNO in bench/peers.py.
//
// Why it looks like this: it is as close to the UNO that Toadstool's load plays as boardgame.io makes cheap,
// so that both servers do comparable work per move. Four players with hidden hands; match the top card's
// colour or value, or play a wild (choosing a colour); skip, reverse and draw two act on the next player,
// wild draw four too (no challenge). Drawing takes one card and ends the turn. When a hand is emptied the
// round is scored and a new one dealt, so a game never ends during a benchmark run (as Toadstool's runs use
// a target score no run reaches). Both moves run on the server only (`client: false`): the deck is hidden and
// the shuffle is the server's, so a client just sends its choice, as a Toadstool client sends an Act.
//
// `playerView` hides the deck and every other hand (their sizes stay visible), as Toadstool's views do.
'use strict';

const COLORS = ['red', 'yellow', 'green', 'blue'];
const HAND = 7;

function newDeck() {
  const deck = [];
  for (const color of COLORS) {
    deck.push({ color, value: '0' });
    for (let n = 1; n <= 9; n++) {
      deck.push({ color, value: String(n) }, { color, value: String(n) });
    }
    for (const value of ['skip', 'reverse', 'draw2']) {
      deck.push({ color, value }, { color, value });
    }
  }
  for (let i = 0; i < 4; i++) {
    deck.push({ color: 'wild', value: 'wild' }, { color: 'wild', value: 'wild4' });
  }
  return deck;
}

/** Whether `card` may be played on the pile (the rule the clients also use to pick a card). */
function playable(card, G) {
  return card.color === 'wild' || card.color === G.color || card.value === G.top.value;
}

function deal(G, random, players) {
  const deck = random.Shuffle(newDeck());
  G.hands = {};
  for (let p = 0; p < players; p++) {
    G.hands[String(p)] = deck.splice(0, HAND);
  }
  // The first card of the pile is never a wild (UNO puts a wild draw four back; this keeps it simple).
  let index = deck.findIndex((c) => c.color !== 'wild');
  G.top = deck.splice(index, 1)[0];
  G.color = G.top.color;
  G.discard = [];
  G.deck = deck;
  G.direction = 1;
  G.round = (G.round || 0) + 1;
}

function drawOne(G, random) {
  if (G.deck.length === 0) {
    G.deck = random.Shuffle(G.discard);
    G.discard = [];
  }
  return G.deck.pop();
}

/** The seat `steps` places after `from` in the current direction. */
function after(from, steps, G, players) {
  return (((Number(from) + steps * G.direction) % players) + players) % players;
}

const UnoLite = {
  name: 'uno',
  minPlayers: 2,
  maxPlayers: 4,

  setup: ({ ctx, random }) => {
    const G = { scores: {}, round: 0 };
    for (let p = 0; p < ctx.numPlayers; p++) G.scores[String(p)] = 0;
    deal(G, random, ctx.numPlayers);
    return G;
  },

  turn: {
    order: {
      first: () => 0,
      // The move itself decides who is next (skips, reverses, draws): it leaves the seat in G.next.
      next: ({ G }) => G.next,
    },
  },

  moves: {
    playCard: {
      client: false,
      move: ({ G, ctx, events, random, playerID }, index, chosen) => {
        const hand = G.hands[playerID];
        const card = hand[index];
        if (card === undefined || !playable(card, G)) return 'INVALID_MOVE';
        if (card.color === 'wild' && !COLORS.includes(chosen)) return 'INVALID_MOVE';
        hand.splice(index, 1);
        G.discard.push(G.top);
        G.top = card;
        G.color = card.color === 'wild' ? chosen : card.color;
        const n = ctx.numPlayers;
        let steps = 1;
        if (card.value === 'reverse') {
          G.direction = -G.direction;
          if (n === 2) steps = 2;
        } else if (card.value === 'skip') {
          steps = 2;
        } else if (card.value === 'draw2' || card.value === 'wild4') {
          const victim = String(after(playerID, 1, G, n));
          const count = card.value === 'draw2' ? 2 : 4;
          for (let i = 0; i < count; i++) G.hands[victim].push(drawOne(G, random));
          steps = 2;
        }
        if (hand.length === 0) {
          // Round over: score the other hands, deal again; the winner starts.
          let points = 0;
          for (const [seat, cards] of Object.entries(G.hands)) {
            if (seat !== playerID) points += cards.length;
          }
          G.scores[playerID] += points;
          deal(G, random, n);
          G.next = Number(playerID);
        } else {
          G.next = after(playerID, steps, G, n);
        }
        events.endTurn();
      },
    },
    drawCard: {
      client: false,
      move: ({ G, ctx, events, random, playerID }) => {
        G.hands[playerID].push(drawOne(G, random));
        G.next = after(playerID, 1, G, ctx.numPlayers);
        events.endTurn();
      },
    },
  },

  playerView: ({ G, playerID }) => {
    const hands = {};
    for (const [seat, cards] of Object.entries(G.hands)) {
      hands[seat] = seat === playerID ? cards : cards.length;
    }
    return { ...G, hands, deck: G.deck.length, discard: G.discard.length };
  },
};

module.exports = { UnoLite, playable, COLORS };
