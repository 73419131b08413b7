// The connection to the server that served this page: the contract's ToadstoolService over the Connect
// protocol (binary protobuf), with message code generated from proto/. Tokens ride in headers whose names
// are the contract's gRPC metadata keys (toadstool.api SEAT_TOKEN_KEY and HOST_TOKEN_KEY; tests/test_web_client.py
// checks them).

import { createClient } from "@connectrpc/connect";
import type { Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ToadstoolService } from "./gen/toadstool/v1/service_pb";
import { language } from "./i18n";

export const SEAT_TOKEN_KEY = "x-seat-token";
export const HOST_TOKEN_KEY = "x-host-token";
/** The takeover wait the contract asks clients to create tables with (toadstool_clients DEFAULT_TAKEOVER_SECONDS). */
export const DEFAULT_TAKEOVER_SECONDS = 60;

export type Api = Client<typeof ToadstoolService>;

export const api: Api = createClient(
  ToadstoolService,
  createConnectTransport({
    baseUrl: location.origin,
    useBinaryFormat: true,
    // The person's language (the lobby's menu, else the browser's), so the server's refusals, game titles
    // and texts come in it; the browser's own Accept-Language says only the browser's.
    interceptors: [
      (next) => async (request) => {
        request.header.set("accept-language", language());
        return next(request);
      },
    ],
  }),
);

export function seatHeaders(token: string | null | undefined): Record<string, string> {
  return token ? { [SEAT_TOKEN_KEY]: token } : {};
}

export function hostHeaders(token: string): Record<string, string> {
  return { [HOST_TOKEN_KEY]: token };
}

/** A fresh request id (crypto.randomUUID needs https; getRandomValues works on a LAN's plain http too). */
export function requestId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
