import type { AuthorizedUserFile } from "../../dist/credentials/kinds/user/file.js";

export declare function credentialsDocument(slot: number, n: number): AuthorizedUserFile;
export declare function documentText(slot: number, n: number): string;
export declare function identifyDocument(text: string): { slot: number; n: number } | undefined;
