// The "browser" of test/docs/pages.test.ts (its BROWSER): opens the sign-in URL the way a
// person would, as alice@example.com, and presses Allow on the emulator's consent page.
import { approveSignIn } from "cred-auth/emulator";

const url = process.argv[2];
const result = await approveSignIn(url, { account: "alice@example.com" });
if (result.error || result.status !== 200) {
  console.error(`sign-in-browser: the sign-in did not complete: ${result.error ?? result.status}`);
  process.exit(1);
}
