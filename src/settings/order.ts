// The settings order, written once: the call's option, else the environment, else the settings.
// Its own small module, low in the layers, so that the sign-in plan (credentials/sign-in/plan.ts), the account
// note's plan (credentials/sign-in/account-note.ts, asked on every cache hit, where loading the whole plan
// would cost) and the credentials cache's secret store (stores/index.ts) share it.

/** The settings order: the call's option, else the environment, else the settings; undefined when none says. */
export function chosen<T>(
  option: T | undefined,
  fromEnv: () => T | undefined,
  fromSettings: () => T | undefined,
): T | undefined {
  return option ?? fromEnv() ?? fromSettings();
}
