import type { Compute, Credentials, OAuth2Client } from "google-auth-library";
import { loadGoogleAuthFor } from "./http.js";
import { clientTransport } from "../protocols/client-transport.js";
import { recordType } from "../protocols/info.js";
import type { FetchedIdToken } from "../protocols/id-token-reply.js";

/** What GAL's refreshTokenNoCache() resolves to (its type is not exported by the package root). */
interface GetTokenResponse {
  tokens: Credentials;
  res: null;
}

/** Asks the platform for a fresh access token. */
export type TokenSource = () => Promise<Credentials>;

/** Asks the metadata server for an ID token (metadata.ts's, passed in: it imports this module). */
export type IdTokenSource = (audience: string) => Promise<FetchedIdToken>;

type GoogleAuthLibrary = Awaited<ReturnType<typeof loadGoogleAuthFor>>;

interface ClientClasses {
  MetadataClient: new (scopes: readonly string[], source: TokenSource, idToken: IdTokenSource) => Compute;
  PlatformClient: new (source: TokenSource) => OAuth2Client;
}

let classes: ClientClasses | undefined;

/** A `Compute` client (metadata credentials, to libraries) whose tokens come from `source`, its ID tokens from `idToken`. */
export async function metadataClient(
  platform: string,
  scopes: readonly string[],
  source: TokenSource,
  idToken: IdTokenSource,
): Promise<Compute> {
  const { MetadataClient } = clientClasses(await loadGoogleAuthFor(platform));
  return recordType(new MetadataClient(scopes, source, idToken), "metadata server");
}

/** An `OAuth2Client` without a refresh token whose tokens come from `source`, again before expiry and after a 401. */
export async function platformClient(platform: string, source: TokenSource): Promise<OAuth2Client> {
  const { PlatformClient } = clientClasses(await loadGoogleAuthFor(platform));
  return new PlatformClient(source);
}

function clientClasses(gal: GoogleAuthLibrary): ClientClasses {
  if (classes) return classes;

  class MetadataClient extends gal.Compute {
    readonly #source: TokenSource;
    readonly #idToken: IdTokenSource;

    constructor(scopes: readonly string[], source: TokenSource, idToken: IdTokenSource) {
      super({ scopes: [...scopes], transporterOptions: clientTransport() });
      this.#source = source;
      this.#idToken = idToken;
    }

    override async fetchIdToken(audience: string): Promise<string> {
      return (await this.#idToken(audience)).idToken;
    }

    // Compute de-duplicates concurrent refreshes above this method.
    protected override async refreshTokenNoCache(): Promise<GetTokenResponse> {
      const tokens = await this.#source();
      this.emit("tokens", tokens);
      return { tokens, res: null };
    }
  }

  class PlatformClient extends gal.OAuth2Client {
    readonly #fetchToken: TokenSource;

    constructor(source: TokenSource) {
      super({ transporterOptions: clientTransport() });
      const fetchToken = oneAtATime(async () => {
        const tokens = await source();
        this.emit("tokens", tokens);
        return tokens;
      });
      this.refreshHandler = async () => {
        const { access_token, expiry_date } = await fetchToken();
        // expiry_date 0 reads as "unknown": GAL then refreshes after a 401 instead of before expiry.
        return { access_token: access_token ?? "", expiry_date: expiry_date ?? 0 };
      };
      this.#fetchToken = fetchToken;
    }

    // The public refreshAccessToken() ends here: there is no refresh token, only the platform.
    protected override async refreshTokenNoCache(): Promise<GetTokenResponse> {
      return { tokens: await this.#fetchToken(), res: null };
    }
  }

  classes = { MetadataClient, PlatformClient };
  return classes;
}

/** Concurrent callers share one pending token request. */
function oneAtATime(source: TokenSource): TokenSource {
  let pending: Promise<Credentials> | undefined;
  return () =>
    (pending ??= source().finally(() => {
      pending = undefined;
    }));
}
