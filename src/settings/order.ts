// Its own small module, low in the layers: the sign-in plan, the account note's and the secret store share it.

/** The settings order: the call's option, else the environment, else the settings; undefined when none says. */
export function chosen<T>(
  option: T | undefined,
  fromEnv: () => T | undefined,
  fromSettings: () => T | undefined,
): T | undefined {
  return option ?? fromEnv() ?? fromSettings();
}
