public enum PictorCryptoModule {}
