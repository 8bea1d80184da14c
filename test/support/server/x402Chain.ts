/**
 * A stand-in for the one party the x402 tests cannot reach: the blockchain. It implements the
 * `FacilitatorEvmSigner` interface of @x402/evm (what a viem public + wallet client would give the
 * facilitator) over an in-memory EIP-3009 token (USDC-like: name "USDC", version "2").
 *
 * It behaves like the token contract would: `transferWithAuthorization` checks the EIP-712
 * signature, the validity window, the balance and the authorization nonce, and a used nonce makes
 * any later transfer with it revert ("authorization is used or canceled") — so a second settlement
 * of the same payment fails exactly as on chain. Reads go through the real Multicall3
 * `tryAggregate` encoding the facilitator uses for its diagnostics.
 */
import { eip3009ABI, authorizationTypes, type FacilitatorEvmSigner } from '@x402/evm';
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  getAddress,
  keccak256,
  parseAbi,
  recoverTypedDataAddress,
  serializeSignature,
  toHex,
  verifyTypedData,
  type Hex,
  type Log,
} from 'viem';

const MULTICALL3 = getAddress('0xcA11bde05977b3631167028862bE2a173976CA11');
const multicallAbi = parseAbi(['function tryAggregate(bool requireSuccess, (address target, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])']);
const transferEvent = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);

type Authorization = { from: Hex; to: Hex; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

export interface ChainOptions {
  chainId: number;
  token: Hex;
  tokenName?: string;
  tokenVersion?: string;
  /** The facilitator's own account (pays gas, sends the transactions). */
  facilitatorAddress: Hex;
}

export class LocalChain {
  readonly token: Hex;
  readonly tokenName: string;
  readonly tokenVersion: string;
  private readonly balances = new Map<string, bigint>();
  private readonly usedNonces = new Set<string>();
  private readonly receipts = new Map<string, { status: 'success' | 'reverted'; logs: Log[] }>();
  private txCount = 0;
  /** Test knob: the next N transfer transactions are mined but revert (e.g. the payer moved the funds). */
  revertNextTransfers = 0;

  constructor(private readonly options: ChainOptions) {
    this.token = getAddress(options.token);
    this.tokenName = options.tokenName ?? 'USDC';
    this.tokenVersion = options.tokenVersion ?? '2';
  }

  mint(address: Hex, amount: bigint): void {
    const key = address.toLowerCase();
    this.balances.set(key, (this.balances.get(key) ?? 0n) + amount);
  }

  balanceOf(address: Hex): bigint {
    return this.balances.get(address.toLowerCase()) ?? 0n;
  }

  isNonceUsed(from: Hex, nonce: Hex): boolean {
    return this.usedNonces.has(`${from.toLowerCase()}:${nonce.toLowerCase()}`);
  }

  /** The contract's checks of transferWithAuthorization; throws the revert reason. */
  private async checkTransfer(auth: Authorization, signature: Hex): Promise<void> {
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (now <= auth.validAfter) throw new Error('FiatTokenV2: authorization is not yet valid');
    if (now >= auth.validBefore) throw new Error('FiatTokenV2: authorization is expired');
    if (this.isNonceUsed(auth.from, auth.nonce)) throw new Error('FiatTokenV2: authorization is used or canceled');
    const signer = await recoverTypedDataAddress({
      domain: { name: this.tokenName, version: this.tokenVersion, chainId: this.options.chainId, verifyingContract: this.token },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: auth,
      signature,
    }).catch(() => undefined);
    if (!signer || signer.toLowerCase() !== auth.from.toLowerCase()) throw new Error('FiatTokenV2: invalid signature');
    if (this.balanceOf(auth.from) < auth.value) throw new Error('ERC20: transfer amount exceeds balance');
  }

  private decodeTransfer(args: readonly unknown[]): { auth: Authorization; signature: Hex } {
    const [from, to, value, validAfter, validBefore, nonce, ...rest] = args as [Hex, Hex, bigint, bigint, bigint, Hex, ...unknown[]];
    const auth = { from, to, value, validAfter, validBefore, nonce };
    const signature =
      rest.length === 3
        ? serializeSignature({ v: BigInt(rest[0] as number), r: rest[1] as Hex, s: rest[2] as Hex })
        : (rest[0] as Hex);
    return { auth, signature };
  }

  /** eth_call against the token. */
  private async callToken(functionName: string, args: readonly unknown[]): Promise<unknown> {
    switch (functionName) {
      case 'balanceOf':
        return this.balanceOf(args[0] as Hex);
      case 'name':
        return this.tokenName;
      case 'version':
        return this.tokenVersion;
      case 'authorizationState':
        return this.isNonceUsed(args[0] as Hex, args[1] as Hex);
      case 'transferWithAuthorization': {
        const { auth, signature } = this.decodeTransfer(args);
        await this.checkTransfer(auth, signature);
        return undefined;
      }
      default:
        throw new Error(`execution reverted: unknown function ${functionName}`);
    }
  }

  /** The FacilitatorEvmSigner the facilitator scheme is given. */
  signer(): FacilitatorEvmSigner {
    return {
      getAddresses: () => [this.options.facilitatorAddress],
      getCode: async ({ address }) => {
        const a = getAddress(address);
        // Contracts have code; the test wallets are plain accounts (EOAs).
        return a === this.token || a === MULTICALL3 ? '0x6080604052' : '0x';
      },
      readContract: async ({ address, functionName, args = [] }) => {
        const target = getAddress(address);
        if (target === MULTICALL3 && functionName === 'tryAggregate') {
          const calls = args[1] as readonly { target: Hex; callData: Hex }[];
          const results = [];
          for (const call of calls) {
            try {
              if (getAddress(call.target) !== this.token) throw new Error('no code');
              const decoded = decodeFunctionData({ abi: eip3009ABI, data: call.callData });
              const value = await this.callToken(decoded.functionName, decoded.args ?? []);
              const returnData =
                decoded.functionName === 'transferWithAuthorization'
                  ? '0x'
                  : encodeFunctionResult({ abi: eip3009ABI, functionName: decoded.functionName, result: value as never });
              results.push({ success: true, returnData });
            } catch {
              results.push({ success: false, returnData: '0x' as Hex });
            }
          }
          return results;
        }
        if (target !== this.token) throw new Error(`execution reverted: no contract at ${target}`);
        return this.callToken(functionName, args);
      },
      verifyTypedData: async (args) => verifyTypedData(args as Parameters<typeof verifyTypedData>[0]),
      writeContract: async ({ address, functionName, args }) => {
        if (getAddress(address) !== this.token || functionName !== 'transferWithAuthorization') {
          throw new Error(`unsupported transaction ${functionName}`);
        }
        const { auth, signature } = this.decodeTransfer(args);
        // Like eth_estimateGas, a transfer that would revert is refused before it is sent.
        await this.checkTransfer(auth, signature);
        const hash = keccak256(toHex(`tx-${++this.txCount}-${auth.nonce}`));
        if (this.revertNextTransfers > 0) {
          this.revertNextTransfers -= 1;
          this.receipts.set(hash, { status: 'reverted', logs: [] });
          return hash;
        }
        this.usedNonces.add(`${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`);
        this.balances.set(auth.from.toLowerCase(), this.balanceOf(auth.from) - auth.value);
        this.mint(auth.to, auth.value);
        const log = {
          address: this.token,
          topics: encodeEventTopics({ abi: transferEvent, eventName: 'Transfer', args: { from: auth.from, to: auth.to } }),
          data: encodeAbiParameters([{ type: 'uint256' }], [auth.value]),
          blockHash: null,
          blockNumber: null,
          logIndex: null,
          transactionHash: hash,
          transactionIndex: null,
          removed: false,
        } as unknown as Log;
        this.receipts.set(hash, { status: 'success', logs: [log] });
        return hash;
      },
      sendTransaction: async () => {
        throw new Error('sendTransaction is not supported by the local chain');
      },
      waitForTransactionReceipt: async ({ hash }) => {
        const receipt = this.receipts.get(hash);
        if (!receipt) throw new Error(`transaction ${hash} not found`);
        return receipt;
      },
    };
  }
}
