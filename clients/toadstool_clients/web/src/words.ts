// Plain words for what went wrong: a refusal or a lost connection as a sentence a person understands,
// never the transport's own text ("Failed to fetch") or the server's version numbers. The server's
// sentence is kept only where it is already meant for people (a full table, a limit, a bad name).

import { Code, ConnectError } from "@connectrpc/connect";
import { t } from "./i18n";

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
      return t("error.movedOn");
    case Code.FailedPrecondition:
      if (/over|finished|ended/i.test(said)) return t("error.over");
      if (/not playing|has not started|lobby/i.test(said)) return t("error.notStarted");
      return t("error.noLonger");
    case Code.PermissionDenied:
      return t("error.onlyHost");
    case Code.Unauthenticated:
      return t("error.lostSeat");
    case Code.NotFound:
      return t("error.gone");
    case Code.AlreadyExists:
      return t("error.already");
    case Code.ResourceExhausted:
      return sentence(said) || t("error.busy");
    case Code.InvalidArgument:
      return sentence(said) || t("error.refused");
    default:
      return t("error.noConnection");
  }
}

/** The server's own sentence, capitalised, when it reads as one (no internal numbers). */
function sentence(said: string): string {
  if (!said || /version \d/.test(said)) return "";
  const text = said.charAt(0).toUpperCase() + said.slice(1);
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}
