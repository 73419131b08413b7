// A seat's Watch and Acts on one WebSocket (toadstool.server.web_socket; docs/custom-clients.md has the
// protocol): the table screen's transport. Over Connect every Act is an HTTP request of its own beside the
// Watch's; here a move is a frame in and a frame out, which costs the server less (docs/benchmarks.md,
// round 7). Frames are binary: one byte of kind, then the message. Errors come as Connect's JSON errors,
// so callers handle a ConnectError exactly as they do over Connect.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeFromString } from "@connectrpc/connect/protocol-connect";
import { ActRequestSchema, ActResponseSchema, WatchRequestSchema, WatchResponseSchema } from "./gen/toadstool/v1/service_pb";
import type { ActResponse, WatchResponse } from "./gen/toadstool/v1/service_pb";
import { language } from "./i18n";

export const SOCKET_PATH = "/toadstool.v1.ToadstoolService/socket";
/** Frame kinds, to the server. */
const HELLO = 0;
const WATCH = 1;
const ACT = 2;
/** Frame kinds, from the server. */
const VIEW = 1;
const ACTED = 2;
const ACT_REFUSED = 3;
const END = 4;
const REFUSED = 5;
/** How long a socket may take to open before it is given up (a proxy that swallows the upgrade). */
const OPEN_MS = 5000;

type ErrorJson = { code?: string; message?: string };

function refusalOf(error: ErrorJson): ConnectError {
  return new ConnectError(error.message ?? "", codeFromString(error.code ?? "") ?? Code.Unknown);
}

function json<T>(payload: Uint8Array): T | null {
  try {
    return JSON.parse(new TextDecoder().decode(payload)) as T;
  } catch {
    return null;
  }
}

function refusal(payload: Uint8Array): ConnectError {
  return refusalOf(json<ErrorJson>(payload) ?? { code: "internal", message: "the server's answer could not be read" });
}

function framed(kind: number, message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(message.length + 1);
  frame[0] = kind;
  frame.set(message, 1);
  return frame;
}

/** One socket: its Watch's responses in order, and the seat's Acts answered on it. */
export class SeatSocket {
  /** Whether the socket ever opened (a network that refuses WebSockets never does: fall back to Connect). */
  opened = false;
  private readonly socket: WebSocket;
  private readonly views: WatchResponse[] = [];
  private wake: (() => void) | null = null;
  /** undefined while the Watch runs; null once it ended cleanly; else why it ended. */
  private ended: ConnectError | null | undefined = undefined;
  private answer: { resolve: (r: ActResponse) => void; reject: (e: ConnectError) => void } | null = null;

  constructor(tableId: string, since: bigint | undefined, token: string | undefined) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.socket = new WebSocket(`${scheme}//${location.host}${SOCKET_PATH}?lang=${encodeURIComponent(language())}`);
    this.socket.binaryType = "arraybuffer";
    const giveUp = setTimeout(() => this.socket.close(), OPEN_MS);
    this.socket.onopen = () => {
      clearTimeout(giveUp);
      this.opened = true;
      if (token) this.socket.send(framed(HELLO, new TextEncoder().encode(token)));
      const request = create(WatchRequestSchema, { tableId, sinceVersion: since });
      this.socket.send(framed(WATCH, toBinary(WatchRequestSchema, request)));
    };
    this.socket.onmessage = (event: MessageEvent) => this.frame(new Uint8Array(event.data as ArrayBuffer));
    this.socket.onclose = () => {
      clearTimeout(giveUp);
      this.end(new ConnectError("the connection to the server closed", Code.Unavailable));
    };
  }

  private frame(data: Uint8Array): void {
    const kind = data[0];
    const payload = data.subarray(1);
    if (kind === VIEW) {
      this.views.push(fromBinary(WatchResponseSchema, payload));
      this.wake?.();
    } else if (kind === ACTED || kind === ACT_REFUSED) {
      const answer = this.answer;
      this.answer = null;
      if (kind === ACTED) answer?.resolve(fromBinary(ActResponseSchema, payload));
      else answer?.reject(refusal(payload));
    } else if (kind === END) {
      const error = json<{ error?: ErrorJson }>(payload)?.error;
      this.end(error ? refusalOf(error) : null);
    } else if (kind === REFUSED) {
      this.end(refusal(payload));
    }
  }

  private end(why: ConnectError | null): void {
    if (this.ended === undefined) this.ended = why;
    this.answer?.reject(why ?? new ConnectError("the stream ended", Code.Unavailable));
    this.answer = null;
    this.wake?.();
  }

  /** The Watch's responses as they come; throws the ConnectError that ended it (none for a clean end). */
  async *responses(): AsyncGenerator<WatchResponse> {
    for (;;) {
      const next = this.views.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended !== undefined) {
        if (this.ended) throw this.ended;
        return;
      }
      await new Promise<void>((done) => (this.wake = done));
      this.wake = null;
    }
  }

  /** Whether an Act can go on this socket now (open, its Watch running, no Act unanswered). */
  get ready(): boolean {
    return this.socket.readyState === WebSocket.OPEN && this.ended === undefined && this.answer === null;
  }

  act(request: MessageInitShape<typeof ActRequestSchema>): Promise<ActResponse> {
    if (!this.ready) return Promise.reject(new ConnectError("the connection is not open", Code.Unavailable));
    return new Promise<ActResponse>((resolve, reject) => {
      this.answer = { resolve, reject };
      this.socket.send(framed(ACT, toBinary(ActRequestSchema, create(ActRequestSchema, request))));
    });
  }

  close(): void {
    this.socket.close(1000);
  }
}
