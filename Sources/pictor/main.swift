import PictorCLI
