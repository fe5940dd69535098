/** The registry's anti-replay store: used nonces and the key nonces are issued under. */

/** Used nonces and the nonce MAC key. */
export interface NonceStore {
  /** The hex MAC key nonces are issued under (created with the schema, shared by all instances). */
  keyHex(): Promise<string>;
  /**
   * Records `nonce` as used until `expiresMs`; false when it already was. Of concurrent
   * transactions recording one nonce, exactly one gets true.
   */
  markUsed(nonce: string, expiresMs: number): Promise<boolean>;
  /** Forgets used nonces whose lifetime ended before `nowMs`; returns how many. */
  purge(nowMs: number): Promise<number>;
}
