import Foundation
internal import COpenSSL

extension AESGCMCipher {
    func sealInto(_ out: UnsafeMutableRawBufferPointer, plaintext: UnsafeRawBufferPointer,
                  associatedData: UnsafeRawBufferPointer) throws(CryptoError) {
        let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        out.copyBytes(from: header)
        let nonce = base + Self.headerByteCount
        guard RAND_bytes(nonce, Int32(Self.nonceByteCount)) == 1 else { throw CryptoError.openSSL("RAND_bytes") }
        let ciphertext = nonce + Self.nonceByteCount
        let tag = ciphertext + plaintext.count
        try contexts.encrypt(nonce: nonce, header: UnsafeRawBufferPointer(start: base, count: Self.headerByteCount),
                             associatedData: associatedData, plaintext: plaintext, ciphertext: ciphertext, tag: tag)
    }

    func openInto(_ out: UnsafeMutableRawBufferPointer, envelope: UnsafeRawBufferPointer,
                  associatedData: UnsafeRawBufferPointer) throws(CryptoError) {
        let base = envelope.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let operation = "AESGCMCipher.open"
        guard memcmp(base, Self.magic, Self.magic.count) == 0 else {
            throw CryptoError(.malformedEnvelope, operation: operation, message: "not a Pictor envelope (bad magic)")
        }
        guard base[4] == Self.formatVersion else {
            throw CryptoError(.unsupportedVersion, operation: operation,
                              message: "envelope format version \(base[4]); this build reads \(Self.formatVersion)")
        }
        let sameKey = header.withUnsafeBufferPointer { own in
            memcmp(base + 5, own.baseAddress! + 5, Self.keyIdentifierByteCount) == 0
        }
        guard sameKey else {
            throw CryptoError(.keyMismatch, operation: operation, message: "envelope was sealed under another key")
        }
        let nonce = base + Self.headerByteCount
        let ciphertext = UnsafeRawBufferPointer(start: nonce + Self.nonceByteCount,
                                                count: envelope.count - Self.overheadByteCount)
        let tag = ciphertext.baseAddress! + ciphertext.count
        try contexts.decrypt(nonce: nonce, header: UnsafeRawBufferPointer(start: base, count: Self.headerByteCount),
                             associatedData: associatedData, ciphertext: ciphertext,
                             plaintext: out.baseAddress!.assumingMemoryBound(to: UInt8.self), tag: tag)
    }
}

extension GCMContextPool {
    /// Largest span given to one `EVP_CipherUpdate` call (its length is an `Int32`).
    static let maximumUpdateByteCount = 1 << 30

    /// Raw AES-256-GCM encryption: 12-byte `nonce`, AAD = `header` ‖ `associatedData`; writes
    /// `plaintext.count` bytes to `ciphertext` and 16 bytes to `tag`.
    func encrypt(nonce: UnsafePointer<UInt8>, header: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
                 plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutablePointer<UInt8>,
                 tag: UnsafeMutablePointer<UInt8>) throws(CryptoError) {
        try withContext { ctx throws(CryptoError) in
            guard EVP_CipherInit_ex2(ctx, nil, nil, nonce, 1, nil) == 1 else {
                throw CryptoError.openSSL("EVP_EncryptInit_ex2")
            }
            try addAAD(ctx, header, operation: "EVP_EncryptUpdate(aad)")
            try addAAD(ctx, associatedData, operation: "EVP_EncryptUpdate(aad)")
            try update(ctx, from: plaintext, to: ciphertext, operation: "EVP_EncryptUpdate")
            var length: Int32 = 0
            guard EVP_EncryptFinal_ex(ctx, tag, &length) == 1,
                  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(AESGCMCipher.tagByteCount), tag) == 1 else {
                throw CryptoError.openSSL("EVP_EncryptFinal_ex")
            }
        }
    }

    /// Raw AES-256-GCM decryption and verification; `plaintext` receives `ciphertext.count`
    /// bytes, which the caller must discard (and wipe) when this throws.
    func decrypt(nonce: UnsafePointer<UInt8>, header: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
                 ciphertext: UnsafeRawBufferPointer, plaintext: UnsafeMutablePointer<UInt8>,
                 tag: UnsafeRawPointer) throws(CryptoError) {
        try withContext { ctx throws(CryptoError) in
            guard EVP_CipherInit_ex2(ctx, nil, nil, nonce, 0, nil) == 1 else {
                throw CryptoError.openSSL("EVP_DecryptInit_ex2")
            }
            try addAAD(ctx, header, operation: "EVP_DecryptUpdate(aad)")
            try addAAD(ctx, associatedData, operation: "EVP_DecryptUpdate(aad)")
            try update(ctx, from: ciphertext, to: plaintext, operation: "EVP_DecryptUpdate")
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(AESGCMCipher.tagByteCount),
                                      UnsafeMutableRawPointer(mutating: tag)) == 1 else {
                throw CryptoError.openSSL("EVP_CIPHER_CTX_ctrl(SET_TAG)")
            }
            var length: Int32 = 0
            var scratch: (UInt64, UInt64) = (0, 0)
            let verified = withUnsafeMutableBytes(of: &scratch) {
                EVP_DecryptFinal_ex(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
            }
            guard verified else {
                ERR_clear_error()
                throw CryptoError(.authenticationFailed, operation: "EVP_DecryptFinal_ex",
                                  message: "the tag does not verify: wrong key, altered bytes or other associated data")
            }
        }
    }

    private func addAAD(_ ctx: OpaquePointer, _ aad: UnsafeRawBufferPointer, operation: String) throws(CryptoError) {
        var offset = 0
        while offset < aad.count {
            let n = min(aad.count - offset, Self.maximumUpdateByteCount)
            var length: Int32 = 0
            guard EVP_CipherUpdate(ctx, nil, &length, aad.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset,
                                   Int32(n)) == 1 else { throw CryptoError.openSSL(operation) }
            offset += n
        }
    }

    private func update(_ ctx: OpaquePointer, from input: UnsafeRawBufferPointer, to output: UnsafeMutablePointer<UInt8>,
                        operation: String) throws(CryptoError) {
        var offset = 0
        while offset < input.count {
            let n = min(input.count - offset, Self.maximumUpdateByteCount)
            var length: Int32 = 0
            guard EVP_CipherUpdate(ctx, output + offset, &length,
                                   input.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, Int32(n)) == 1,
                  Int(length) == n else { throw CryptoError.openSSL(operation) }
            offset += n
        }
    }
}
