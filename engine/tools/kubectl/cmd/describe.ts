// `kubectl describe` placeholder until the describers land.
import { Command } from "../../cobra/command.ts";
import type { Kube } from "../ctx.ts";
/** newDescribeCommand builds `kubectl describe`. */
export function newDescribeCommand(kube: Kube): Command {
  void kube;
  return new Command({ use: "describe", short: "Show details of a specific resource or group of resources", run: () => undefined });
}
