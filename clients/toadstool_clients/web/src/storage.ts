// What this browser remembers: the person's name, and the seats it holds (token per table).
//
// A seat's token is kept in localStorage under its table, so closing the tab or restarting the phone keeps
// the seat; the tab's own choice of seat (and the last version it saw) is in sessionStorage, so two people
// on one device can each hold a seat in their own tab, and a reload resumes exactly the tab's seat.
// Tokens never go into a URL.

import type { LoggedEvent } from "./display";

export interface HeldSeat {
  seat: number;
  name: string;
  token: string;
}

const NAME = "toadstool:name";
const seatsKey = (tableId: string) => `toadstool:seats:${tableId}`;
const tabKey = (tableId: string) => `toadstool:tab:${tableId}`;
const hostKey = (tableId: string) => `toadstool:host:${tableId}`;
const resumeKey = (tableId: string) => `toadstool:resume:${tableId}`;

function read<T>(storage: Storage, key: string, fallback: T): T {
  try {
    const raw = storage.getItem(key);
    return raw === null ? fallback : (JSON.parse(raw) as T);
  } catch {
    return fallback;
  }
}

export function savedName(): string {
  return localStorage.getItem(NAME) ?? "";
}

export function saveName(name: string): void {
  localStorage.setItem(NAME, name);
}

export function heldSeats(tableId: string): HeldSeat[] {
  return read<HeldSeat[]>(localStorage, seatsKey(tableId), []);
}

export function holdSeat(tableId: string, held: HeldSeat): void {
  const others = heldSeats(tableId).filter((s) => s.seat !== held.seat);
  localStorage.setItem(seatsKey(tableId), JSON.stringify([...others, held]));
  sessionStorage.setItem(tabKey(tableId), held.token);
}

export function forgetSeat(tableId: string, token: string): void {
  localStorage.setItem(seatsKey(tableId), JSON.stringify(heldSeats(tableId).filter((s) => s.token !== token)));
  if (sessionStorage.getItem(tabKey(tableId)) === token) sessionStorage.removeItem(tabKey(tableId));
}

/** The seat this tab plays: the one it chose, else the only one this browser holds at the table. */
export function tabSeat(tableId: string): HeldSeat | null {
  const held = heldSeats(tableId);
  const token = sessionStorage.getItem(tabKey(tableId));
  const chosen = held.find((s) => s.token === token);
  if (chosen) return chosen;
  return held.length === 1 ? held[0] : null;
}

export function chooseSeat(tableId: string, held: HeldSeat): void {
  sessionStorage.setItem(tabKey(tableId), held.token);
}

export function saveHostToken(tableId: string, token: string): void {
  localStorage.setItem(hostKey(tableId), token);
}

export function hostToken(tableId: string): string | null {
  return localStorage.getItem(hostKey(tableId));
}

/** Where this tab left the table: the last version seen and the event log, to resume from. */
export interface Resume {
  version: string;
  events: LoggedEvent[];
}

export function savedResume(tableId: string, viewer: string): Resume | null {
  const saved = read<(Resume & { viewer: string }) | null>(sessionStorage, resumeKey(tableId), null);
  return saved !== null && saved.viewer === viewer ? saved : null;
}

export function saveResume(tableId: string, viewer: string, resume: Resume): void {
  sessionStorage.setItem(resumeKey(tableId), JSON.stringify({ ...resume, viewer }));
}
