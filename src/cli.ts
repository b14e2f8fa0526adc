#!/usr/bin/env node
// The cred-auth command line. Kept tiny at load: print-token's cached path loads nothing heavy.
process.stderr.write("cred-auth: not implemented yet\n");
process.exitCode = 1;
