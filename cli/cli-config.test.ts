import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configFilePath, resolveConnection } from "./cli-config";
import { CliError, EXIT } from "./exit-codes";

describe("where the CLI connects and as whom", () => {
  let dir = "";
  afterEach(() => dir && fs.rmSync(dir, { recursive: true, force: true }));
  const configWith = (content: string) => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-cli-config-"));
    const file = path.join(dir, "config.json");
    fs.writeFileSync(file, content);
    return file;
  };

  it("takes --url over VIGIL_URL over the config file over the local console, and VIGIL_TOKEN over the file", () => {
    const file = configWith(JSON.stringify({ url: "https://file.example/", token: "vgl_file" }));
    expect(resolveConnection({}, { VIGIL_CONFIG: file })).toEqual({ url: "https://file.example", token: "vgl_file" });
    expect(resolveConnection({}, { VIGIL_CONFIG: file, VIGIL_URL: "https://env.example", VIGIL_TOKEN: "vgl_env" })).toEqual({
      url: "https://env.example",
      token: "vgl_env",
    });
    expect(resolveConnection({ url: "http://flag.example:8080/" }, { VIGIL_CONFIG: file }).url).toBe("http://flag.example:8080");
    expect(resolveConnection({}, { VIGIL_CONFIG: path.join(os.tmpdir(), "no-such-vigil.json"), VIGIL_TOKEN: "t", PORT: "4000" }).url).toBe(
      "http://localhost:4000",
    );
  });

  it("finds the config file under XDG_CONFIG_HOME or ~/.config", () => {
    expect(configFilePath({ HOME: "/home/ops" })).toBe("/home/ops/.config/vigil/config.json");
    expect(configFilePath({ HOME: "/home/ops", XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/vigil/config.json");
  });

  it("without a token is an auth failure (exit 3); an unreadable config file a usage one (exit 2)", () => {
    const none = () => resolveConnection({}, { VIGIL_CONFIG: path.join(os.tmpdir(), "no-such-vigil.json") });
    expect(none).toThrow(CliError);
    expect(() => none()).toThrow(/no API token/);
    try {
      none();
    } catch (err) {
      expect((err as CliError).exitCode).toBe(EXIT.auth);
    }
    const bad = configWith("{ not json");
    try {
      resolveConnection({}, { VIGIL_CONFIG: bad });
      expect.unreachable();
    } catch (err) {
      expect((err as CliError).exitCode).toBe(EXIT.usage);
      expect((err as CliError).message).toMatch(/is not JSON/);
    }
  });
});
