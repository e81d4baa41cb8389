"""UNO as refereed by the ALGORI 2023 dealer."""
