// Plain words for what went wrong: a refusal or a lost connection as a sentence a person understands,
// never the transport's own text ("Failed to fetch") or the server's version numbers. The server's
// sentence is kept only where it is already meant for people (a full table, a limit, a bad name).

import { Code, ConnectError } from "@connectrpc/connect";

/** Whether the failure is the connection's (it passes once the server answers again), not a refusal. */
export function isConnectionProblem(error: unknown): boolean {
  const failure = ConnectError.from(error);
  return failure.code === Code.Unavailable || failure.code === Code.Unknown || failure.code === Code.DeadlineExceeded || failure.code === Code.Canceled;
}

/** A refused or failed action (a move, a join, a host's control) in words. */
export function plainWords(error: unknown): string {
  const failure = ConnectError.from(error);
  const said = failure.rawMessage;
  switch (failure.code) {
    case Code.Aborted:
      return "The table moved on before your move arrived: here is where it is now.";
    case Code.FailedPrecondition:
      if (/over|finished|ended/i.test(said)) return "This game is already over.";
      if (/not playing|has not started|lobby/i.test(said)) return "The game has not started yet.";
      return "That move is no longer possible: here is where the table is now.";
    case Code.PermissionDenied:
      return "Only the table's host can do that.";
    case Code.Unauthenticated:
      return "This device no longer holds that seat: you are watching now.";
    case Code.NotFound:
      return "This table is gone: it may have ended a while ago.";
    case Code.AlreadyExists:
      return "That was already done.";
    case Code.ResourceExhausted:
      return sentence(said) || "The server is busy: try again in a moment.";
    case Code.InvalidArgument:
      return sentence(said) || "The server could not accept that.";
    default:
      return "No connection to the server: trying again…";
  }
}

/** The server's own sentence, capitalised, when it reads as one (no internal numbers). */
function sentence(said: string): string {
  if (!said || /version \d/.test(said)) return "";
  const text = said.charAt(0).toUpperCase() + said.slice(1);
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}
