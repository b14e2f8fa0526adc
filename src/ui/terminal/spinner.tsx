import { useEffect, useState, type JSX } from "react";
import { useInk } from "./use-ink.js";

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPINNER_INTERVAL_MS = 80;

/** A spinner and what is being waited for; cyan unless `color` is off (NO_COLOR). */
export function Spinner({ label, color }: { label: string; color: boolean }): JSX.Element {
  const { Text } = useInk().ink;
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setFrame((n) => (n + 1) % SPINNER_FRAMES.length), SPINNER_INTERVAL_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text>
      <Text {...(color ? { color: "cyan" } : {})}>{SPINNER_FRAMES[frame]}</Text> {label}
    </Text>
  );
}
