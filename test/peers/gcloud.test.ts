// gcloud (528 in this image) against the emulator: `gcloud auth application-default print-access-token`
// with every ADC type it supports, through the loopback Google proxy.
import { definePeerTests } from "./define.ts";

definePeerTests("gcloud", "gcloud auth application-default print-access-token");
