public enum PictorCLIModule {}
