export { createTerminalPresenter } from "./presenter.js";
export type { TerminalPresenterOptions } from "./presenter.js";
