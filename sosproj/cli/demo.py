"""placeholder"""
def add_parser(sub, parents):
    pass
