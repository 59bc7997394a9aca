import { describe, expect, it } from "vitest";
import { RENEWAL_TYPE, renewedToken } from "./renewalMessage";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjF9.c2ln";
const HOSTS = ["https://portal.example.com"];

describe("renewedToken", () => {
  it("accepts a renewal from an allowed host", () => {
    expect(renewedToken("https://portal.example.com", { type: RENEWAL_TYPE, token: TOKEN }, HOSTS)).toBe(TOKEN);
  });
  it("ignores other origins, even a look-alike", () => {
    expect(renewedToken("https://portal.example.com.evil.test", { type: RENEWAL_TYPE, token: TOKEN }, HOSTS)).toBeNull();
    expect(renewedToken("http://portal.example.com", { type: RENEWAL_TYPE, token: TOKEN }, HOSTS)).toBeNull();
    expect(renewedToken("https://portal.example.com", { type: RENEWAL_TYPE, token: TOKEN }, [])).toBeNull();
  });
  it("ignores other messages and malformed tokens", () => {
    expect(renewedToken(HOSTS[0]!, "token", HOSTS)).toBeNull();
    expect(renewedToken(HOSTS[0]!, { type: "other", token: TOKEN }, HOSTS)).toBeNull();
    expect(renewedToken(HOSTS[0]!, { type: RENEWAL_TYPE, token: "<script>" }, HOSTS)).toBeNull();
    expect(renewedToken(HOSTS[0]!, { type: RENEWAL_TYPE, token: 7 }, HOSTS)).toBeNull();
  });
});
