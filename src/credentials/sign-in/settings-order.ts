// The settings order (option > environment > setting), written once in settings/order.ts so that the
// credentials cache (below this layer) shares it; re-exported here for the plan and the account note.
export { chosen } from "../../settings/order.js";
