/** Admin routes of the STS side (spread into admin.ts's POST actions): issue subject tokens and external-account files. */
import { HttpError } from "./http.js";
import { STS_ROTATIONS } from "./state.js";
import type { ProviderType, StsRefreshTokenRotation } from "./sts-types.js";
import type { Emulator } from "./types.js";

type StsAction = (emulator: Emulator, body: unknown) => unknown;

function field(body: unknown, key: string): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[key]
    : undefined;
}

function stringField(body: unknown, key: string, required: boolean): string | undefined {
  const value = field(body, key);
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value === "") throw new HttpError(400, `"${key}" must be a non-empty string.`);
  return value;
}

export const STS_ADMIN_ACTIONS: Record<string, StsAction> = {
  /** `{"audience": "//iam.googleapis.com/...", "subject"?: string, "lifetimeSec"?: number}` → `{"token": JWT}`. */
  "/subject-token": (emulator, body) => {
    const audience = stringField(body, "audience", true) as string;
    const subject = stringField(body, "subject", false);
    const lifetimeSec = field(body, "lifetimeSec");
    if (lifetimeSec !== undefined && (typeof lifetimeSec !== "number" || !Number.isFinite(lifetimeSec)))
      throw new HttpError(400, '"lifetimeSec" must be a number.');
    return {
      token: emulator.issueSubjectToken({
        audience,
        ...(subject ? { subject } : {}),
        ...(typeof lifetimeSec === "number" ? { lifetimeSec } : {}),
      }),
    };
  },
  /** `{"audience": "//iam.googleapis.com/...", "type"?: "oidc" | "aws"}` → `{"audience": ..., "type": ...}`. */
  "/identity-provider": (emulator, body) => {
    const type = stringField(body, "type", false) as ProviderType | undefined;
    try {
      const audience = emulator.addIdentityProvider(
        stringField(body, "audience", true) as string,
        type ? { type } : {},
      );
      return { audience, type: type ?? "oidc" };
    } catch (error) {
      throw error instanceof RangeError ? new HttpError(400, error.message) : error;
    }
  },
  /** `{"rotate": true | false | "revoke-old"}`: STS refresh-token rotation (see StsRefreshTokenRotation). */
  "/sts-refresh-rotation": (emulator, body) => {
    const rotate = field(body, "rotate");
    if (!STS_ROTATIONS.includes(rotate as StsRefreshTokenRotation))
      throw new HttpError(400, '"rotate" must be true, false or "revoke-old".');
    emulator.setStsRefreshTokenRotation(rotate as StsRefreshTokenRotation);
    return { ok: true, rotate };
  },
  /** The reply is a complete `external_account_authorized_user` file. */
  "/external-account-authorized-user": (emulator, body) => {
    const audience = stringField(body, "audience", false);
    try {
      return emulator.issueExternalAccountAuthorizedUser(audience ? { audience } : {});
    } catch (error) {
      throw error instanceof RangeError ? new HttpError(400, error.message) : error;
    }
  },
};
